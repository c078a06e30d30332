#!/usr/bin/env python3
"""The rate of ``Table.query_many`` against ``retro query TABLE --batch`` on the same
positions: 1,000,000 random young 10 x 10 positions (tables/young-10x10.txt, the repository's
random board), drawn uniformly over the table's positions with a fixed seed.

    python python/bench/query_many.py [--count N] [--repeat R] [--retro PATH]

Builds the table into target/bench-python/ if it is not there (with retro.build), writes the
positions there once, checks that both give the same values, then times R rounds of each,
alternating: the command line as a whole process (start-up, reading stdin, printing one
value a line to /dev/null), and ``query_many`` on a list already in memory (what a notebook
holds), with the conversion of its answer to a NumPy array. Prints positions per second,
min and median of the rounds, and the ratio of the medians.

``--only python`` times one ``query_many`` of the positions file in a fresh process (reading
the file included), for a whole-process comparison under an outside timer.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import retro

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "target" / "bench-python"


def prepare(count: int) -> tuple[Path, Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    table = OUT / "young-10x10.retro"
    if not table.exists():
        retro.build("young", REPO / "tables" / "young-10x10.txt", table)
    positions = OUT / f"young-10x10-{count}.txt"
    if not positions.exists():
        t = retro.open(table)
        rng = np.random.default_rng(35)
        sizes = np.array(t.layer_sizes, dtype=np.int64)
        ends = np.cumsum(sizes)
        picks = rng.integers(0, ends[-1], size=count)
        layers = np.searchsorted(ends, picks, side="right")
        ranks = picks - (ends - sizes)[layers]
        with open(positions, "w") as f:
            f.writelines(t.position(int(k), int(r)) + "\n" for k, r in zip(layers, ranks))
    return table, positions


def find_retro(given: str | None) -> str:
    if given:
        return given
    for profile in ("release", "ci"):
        exe = REPO / "target" / profile / "retro"
        if exe.exists():
            return str(exe)
    sys.exit("error: no retro binary in target/release or target/ci; build one (cargo build --release) or pass --retro")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--retro", help="the retro binary [default: target/release/retro, else target/ci/retro]")
    parser.add_argument("--only", choices=["python"], help="one query_many in this process, reading the file included")
    args = parser.parse_args()
    table_path, positions_path = prepare(args.count)

    if args.only == "python":
        t = retro.open(table_path)
        with open(positions_path) as f:
            values = t.query_many(f.read().splitlines())
        print(len(values), int(values.sum()))
        return

    exe = find_retro(args.retro)
    t = retro.open(table_path)
    with open(positions_path) as f:
        positions = f.read().splitlines()
    n = len(positions)

    # The same answers first: a benchmark of wrong answers would mean nothing.
    with open(positions_path) as stdin:
        printed = subprocess.run([exe, "query", str(table_path), "--batch"], stdin=stdin,
                                 capture_output=True, text=True, check=True).stdout
    values = t.query_many(positions)
    assert values.tolist() == [int(v) for v in printed.split()], "query_many and --batch disagree"

    cli_rates, py_rates = [], []
    for _ in range(args.repeat):
        with open(positions_path) as stdin:
            start = time.perf_counter()
            subprocess.run([exe, "query", str(table_path), "--batch"], stdin=stdin,
                           stdout=subprocess.DEVNULL, check=True)
            cli_rates.append(n / (time.perf_counter() - start))
        start = time.perf_counter()
        t.query_many(positions)
        py_rates.append(n / (time.perf_counter() - start))

    def show(name: str, rates: list[float]) -> None:
        print(f"{name:32} min {min(rates) / 1e6:6.2f}  median {statistics.median(rates) / 1e6:6.2f} "
              f"million positions/s ({args.repeat} rounds)")

    print(f"{n} random young 10x10 positions, table {table_path.relative_to(REPO)}, retro {exe}")
    show("retro query --batch (process)", cli_rates)
    show("Table.query_many (in process)", py_rates)
    print(f"query_many / --batch, medians: {statistics.median(py_rates) / statistics.median(cli_rates):.2f}")


if __name__ == "__main__":
    main()
