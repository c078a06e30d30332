"""Tables that fold symmetric positions (mnk, connect, Teeko, Quixo and Morris by default: one entry per orbit of
the board's symmetries) against unfolded tables of the same boards: every position answers
the same, and the orbit sizes weigh each layer's entries into its positions and counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict, Tuple

import numpy as np
import pytest

import retro
from conftest import UNFOLDED, all_positions

#: Boards built here besides the session's tables: (game, board).
BUILT = {"teeko-4x4s3": ("teeko", "4x4s3"), "mnk-2x4k3": ("mnk", "2x4k3")}


@pytest.fixture(scope="module")
def pairs(cli, tables, tmp_path_factory) -> Dict[str, Tuple[Path, Path]]:
    """name -> (folded table, unfolded table of the same board)."""
    out = tmp_path_factory.mktemp("fold")
    found = {name: (tables[name], tables[unfolded]) for name, unfolded in UNFOLDED.items()}
    for name, (game, board) in BUILT.items():
        folded, unfolded = out / f"{name}.retro", out / f"{name}-unfolded.retro"
        cli.run("build", game, board, "-o", str(folded), "--quiet")
        cli.run("build", game, board, "--no-fold", "-o", str(unfolded), "--quiet")
        found[name] = (folded, unfolded)
    return found


NAMES = sorted(UNFOLDED) + sorted(BUILT)


@pytest.mark.parametrize("name", NAMES)
def test_every_position_answers_as_in_the_unfolded_table(pairs, name):
    folded_path, unfolded_path = pairs[name]
    folded, unfolded = retro.open(folded_path), retro.open(unfolded_path)
    assert folded.symmetries > 1 and unfolded.symmetries == 1
    assert folded.entries < folded.positions == unfolded.positions == unfolded.entries
    positions = all_positions(unfolded_path)
    assert len(positions) == unfolded.positions
    # Positions play cannot reach (Quixo's) are refused by both alike.
    codes = folded.query_many(positions, codes=True, errors="mask")
    want_codes = unfolded.query_many(positions, codes=True, errors="mask")
    assert codes.mask.tolist() == want_codes.mask.tolist()
    assert codes.compressed().tolist() == want_codes.compressed().tolist()
    assert codes.count() > 0
    got, want = folded.query_many(positions, errors="mask"), unfolded.query_many(positions, errors="mask")
    assert got.mask.tolist() == want.mask.tolist()
    assert got.result.compressed().tolist() == want.result.compressed().tolist()
    assert got.remoteness.compressed().tolist() == want.remoteness.compressed().tolist()


@pytest.mark.parametrize("name", NAMES)
def test_orbit_sizes_weigh_a_folded_layer_into_the_unfolded_one(pairs, name):
    folded_path, unfolded_path = pairs[name]
    folded, unfolded = retro.open(folded_path), retro.open(unfolded_path)
    assert folded.layer_positions == unfolded.layer_sizes == unfolded.layer_positions
    for k, size in enumerate(folded.layer_sizes):
        f = folded.layer(k, positions=True)
        u = unfolded.layer(k, positions=True)
        assert len(f) == size and f.orbit_size.dtype == np.int64
        assert f.orbit_size.sum() == len(u) == folded.layer_positions[k]
        assert (u.orbit_size == 1).all()
        # Each row's orbit size is how many of the layer's positions share its rank, its
        # own position among them.
        ranks = [folded.rank(p) for p in u.position]
        assert {stones for stones, _ in ranks} == {k}
        shared = np.bincount([r for _, r in ranks], minlength=size)
        assert shared.tolist() == f.orbit_size.tolist()
        assert [folded.rank(p) for p in f.position] == [(k, r) for r in range(size)]
        # Counts weighed by orbit size are the unfolded layer's counts.
        weighed: Counter = Counter()
        for result, remoteness, n in zip(f.result, f.remoteness, f.orbit_size):
            weighed[result, remoteness] += int(n)
        assert weighed == Counter(zip(u.result, u.remoteness))


def test_build_and_solve_fold_unless_told_not_to(tmp_path):
    totals = []

    def progress(done, total, layer):
        totals.append(total)

    folded = retro.build("teeko", "3x3s2", tmp_path / "f.retro", progress=progress)
    assert totals[-1] == folded["entries"] < folded["positions"]
    unfolded = retro.build("teeko", "3x3s2", tmp_path / "u.retro", fold=False, progress=progress)
    assert totals[-1] == unfolded["entries"] == unfolded["positions"] == folded["positions"]
    assert (folded["symmetries"], unfolded["symmetries"]) == (retro.open(tmp_path / "f.retro").symmetries, 1)
    # solve sweeps one entry per orbit unless fold=False, to the same value.
    solved = retro.solve("quixo", "3x3", progress=progress)
    folded_total = totals[-1]
    assert retro.solve("quixo", "3x3", fold=False, progress=progress) == solved
    assert folded_total < totals[-1]


@pytest.mark.parametrize("name", NAMES)
def test_stats_are_the_command_lines_and_count_the_layers_rows(cli, pairs, name):
    """``Table.stats()`` is ``retro stats --json``'s object, and its counts are the rows'
    of each layer (``to_pandas``: one per entry, with its orbit's size)."""
    import json

    folded_path, _ = pairs[name]
    t = retro.open(folded_path)
    stats = t.stats()
    assert stats == json.loads(cli.run("stats", str(folded_path), "--json").stdout)
    for k, layer in enumerate(stats["layers"]):
        rows = t.layer(k)
        assert layer["entries"] == len(rows)
        assert layer["positions"] == int(np.asarray(rows.orbit_size).sum())
        if getattr(rows, "result", None) is not None:
            # Entries won and the like count rows; wins and the like weigh each row by
            # its orbit's size (positions).
            got = Counter(str(r) for r in rows.result)
            weighed = Counter()
            for r, size in zip(rows.result, np.asarray(rows.orbit_size)):
                weighed[str(r)] += int(size)
            kinds = ("win", "loss", "draw", "tie")
            assert [layer[f"{k}_entries"] for k in kinds] == [got.get(k, 0) for k in kinds]
            assert [layer[k] for k in ("wins", "losses", "draws", "ties")] == [
                weighed.get(k, 0) for k in kinds]
    split = t.stats(split=True, reachable=True)
    assert split == json.loads(
        cli.run("stats", str(folded_path), "--json", "--split", "--reachable").stdout)
    # A layer's classes share out its positions, and the reachable ones.
    for layer in split["layers"]:
        rows = [r for r in split["split"] if r["layer"] == layer["layer"]]
        assert sum(r["reachable"] for r in rows) == layer["reachable"] <= layer["positions"]
    for layer in split["layers"]:
        rows = [r for r in split["split"] if r["layer"] == layer["layer"]]
        assert sum(r["positions"] for r in rows) == layer["positions"]
