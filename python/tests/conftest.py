"""Shared fixtures: the `retro` command line (the answers the package must equal) and the
tables the tests read, built once per session by that command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

REPO = Path(__file__).resolve().parents[2]


def _find_cli() -> Path:
    """The `retro` binary: $RETRO_BIN, else the repository's ci or release build, else a
    fresh `cargo build --profile ci`."""
    if os.environ.get("RETRO_BIN"):
        # Absolute: some tests run in a directory of their own.
        return Path(os.environ["RETRO_BIN"]).resolve()
    for profile in ("ci", "release"):
        exe = REPO / "target" / profile / "retro"
        if exe.exists():
            return exe
    subprocess.run(["cargo", "build", "--profile", "ci"], cwd=REPO, check=True)
    return REPO / "target" / "ci" / "retro"


class Cli:
    """Runs the command line and returns what it printed."""

    def __init__(self, exe: Path) -> None:
        self.exe = exe

    def run(self, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [str(self.exe), *args], input=input, capture_output=True, text=True
        )
        if check and done.returncode != 0:
            raise AssertionError(f"retro {' '.join(args)} failed: {done.stderr}")
        return done

    def error(self, *args: str) -> str:
        """The one-line message of a failing command, without `error: `."""
        done = self.run(*args, check=False)
        assert done.returncode != 0, f"retro {' '.join(args)} did not fail"
        line = done.stderr.strip()
        assert line.startswith("error: ") and "\n" not in line, done.stderr
        return line[len("error: "):]

    def batch_json(self, table: Path, positions: List[str]) -> List[dict]:
        done = self.run("query", str(table), "--batch", "--json",
                        input="".join(p + "\n" for p in positions), check=False)
        assert done.returncode in (0, 2), done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(_find_cli())


#: name -> (build arguments after `retro build`): every game, every encoding, mnk, connect,
#: Teeko and Quixo folded (their default) and unfolded.
TABLES: Dict[str, List[str]] = {
    "young-sample": ["young", str(REPO / "tables/young-sample.txt")],
    "twins-sample1": ["twins", str(REPO / "tables/twins-sample1.txt")],
    "twins-sample2": ["twins", str(REPO / "tables/twins-sample2.txt")],
    "young-10x10": ["young", str(REPO / "tables/young-10x10.txt")],
    "young-10x10-compact": ["young", str(REPO / "tables/young-10x10.txt"), "--compact"],
    "twins-sample1-moves": ["twins", str(REPO / "tables/twins-sample1.txt"), "--moves", "2"],
    "ttt": ["mnk", "3x3k3"],
    "ttt-unfolded": ["mnk", "3x3k3", "--no-fold"],
    "connect-4x4k3": ["connect", "4x4k3"],
    "connect-4x4k3-unfolded": ["connect", "4x4k3", "--no-fold"],
    "teeko-3x3s2": ["teeko", "3x3s2"],
    "quixo-3x3": ["quixo", "3x3"],
    "teeko-3x3s2-unfolded": ["teeko", "3x3s2", "--no-fold"],
    "quixo-3x3-unfolded": ["quixo", "3x3", "--no-fold"],
}

#: The folded tables, each with the unfolded table of the same board (which lists every
#: position in its layers).
UNFOLDED: Dict[str, str] = {
    "ttt": "ttt-unfolded",
    "connect-4x4k3": "connect-4x4k3-unfolded",
    "teeko-3x3s2": "teeko-3x3s2-unfolded",
    "quixo-3x3": "quixo-3x3-unfolded",
}

#: The tables small enough to compare on every position.
SMALL = ["young-sample", "twins-sample1", "twins-sample2", "twins-sample1-moves", "ttt",
         "connect-4x4k3", "teeko-3x3s2", "quixo-3x3"]


@pytest.fixture(scope="session")
def tables(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    out = tmp_path_factory.mktemp("tables")
    built = {}
    for name, args in TABLES.items():
        path = out / f"{name}.retro"
        cli.run("build", *args, "-o", str(path), "--quiet")
        built[name] = path
    return built


@pytest.fixture(scope="session")
def export_rows(cli: Cli, tables: Dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    """`retro export --csv`'s rows of a table, as dicts of strings (cached)."""
    import csv

    out = tmp_path_factory.mktemp("export")
    cache: Dict[str, List[dict]] = {}

    def rows(name: str) -> List[dict]:
        if name not in cache:
            path = out / f"{name}.csv"
            cli.run("export", str(tables[name]), "--csv", "-o", str(path), "--quiet")
            with open(path, newline="") as f:
                cache[name] = list(csv.DictReader(f))
        return cache[name]

    return rows


def all_positions(table_path: Path) -> List[str]:
    """The position of every entry of a table, in layer and rank order: every position of
    a table that does not fold symmetric positions, one per orbit of one that does."""
    import retro

    t = retro.open(table_path)
    return [p for k in range(len(t.layer_sizes)) for p in t.layer(k, positions=True).position]


def every_position(tables: Dict[str, Path], name: str) -> List[str]:
    """Every position table `name` answers for, in the order its unfolded table lists
    them."""
    return all_positions(tables[UNFOLDED.get(name, name)])


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return tmp_path


def copy(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst
