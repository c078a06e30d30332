"""Answers equal the command line's: `query --json` on every position of the samples,
`--pv`, `query --batch` for `query_many`, and `info --json`."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import retro
from conftest import SMALL, every_position


@pytest.mark.parametrize("name", SMALL)
def test_query_equals_query_json_on_every_position(cli, tables, name):
    path = tables[name]
    t = retro.open(path)
    # A folded table (teeko, quixo) answers for every position of its orbits.
    positions = every_position(tables, name)
    assert len(positions) == t.positions
    expected = cli.batch_json(path, positions)
    assert len(expected) == len(positions)
    answered = refused = 0
    for position, want in zip(positions, expected):
        want.pop("line")  # the input line number, not the winning line
        if "error" in want:
            # A position play cannot reach (mnk, connect): refused the same way.
            with pytest.raises(ValueError) as e:
                t.query(position)
            assert str(e.value) == want["error"]
            refused += 1
        else:
            assert t.query(position) == want
            answered += 1
    assert answered > 0
    if name in ("ttt",):
        assert refused > 0


def test_query_sampled_on_a_large_table(cli, tables):
    path = tables["young-10x10-compact"]
    t = retro.open(path)
    rng = random.Random(35)
    positions = [t.position(k, rng.randrange(n)) for k, n in enumerate(t.layer_sizes) for _ in range(20)]
    for position, want in zip(positions, cli.batch_json(path, positions)):
        want.pop("line")  # the input line number, not the winning line
        assert t.query(position) == want


@pytest.mark.parametrize("name", ["young-sample", "twins-sample1", "ttt", "connect-4x4k3", "quixo-3x3"])
def test_query_with_pv_equals_the_command(cli, tables, name):
    path = tables[name]
    t = retro.open(path)
    rng = random.Random(7)
    # A single query through the command itself (not --batch), with and without --pv.
    for position in ["empty"] + rng.sample(every_position(tables, name)[:2000], 5):
        done = cli.run("query", str(path), position, "--json", "--pv", check=False)
        if done.returncode != 0:
            with pytest.raises(ValueError) as e:
                t.query(position, pv=True)
            assert done.stderr.strip() == f"error: {e.value}"
            continue
        want = json.loads(done.stdout)
        assert t.query(position, pv=True) == want
        assert t.pv(position) == want["pv"]
        assert "pv" not in t.query(position)


@pytest.mark.parametrize("name", ["young-sample", "twins-sample2", "ttt", "connect-4x4k3", "teeko-3x3s2", "young-10x10"])
def test_query_many_equals_query_batch(cli, tables, name):
    path = tables[name]
    t = retro.open(path)
    positions = every_position(tables, name)
    # Some lines that are not positions, among the others.
    positions[1:1] = ["nonsense", "", "x" * 100]
    # --codes: the entries as stored, for every game (games with outcomes print words
    # without it).
    done = cli.run("query", str(path), "--batch", "--codes", input="".join(p + "\n" for p in positions), check=False)
    lines = done.stdout.splitlines()
    assert len(lines) == len(positions)
    bad = [i for i, line in enumerate(lines) if line == "error"]
    bad_set = set(bad)
    assert done.returncode == 2 and bad
    # codes=True: the entries as stored, what the batch prints, for every game.
    got = t.query_many(positions, errors="mask", codes=True)
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == np.int64
    assert list(np.flatnonzero(got.mask)) == bad
    assert [str(v) for i, v in enumerate(got.data) if i not in bad_set] == [
        line for line in lines if line != "error"
    ]
    # errors="raise": the first bad one, by index, with the command's message.
    with pytest.raises(ValueError) as e:
        t.query_many(positions)
    assert str(e.value).startswith(f"positions[{bad[0]}]: ")
    stderr_lines = done.stderr.splitlines()
    assert str(e.value).split(": ", 1)[1] == stderr_lines[0].split(": ", 2)[2]
    # Any iterable, and the good ones alone without a mask.
    good = [p for i, p in enumerate(positions) if i not in bad_set]
    want_codes = [int(line) for line in lines if line != "error"]
    assert t.query_many(iter(good), codes=True).tolist() == want_codes
    plain = t.query_many(good)
    assert not isinstance(plain, np.ma.MaskedArray)
    if not t.info(check=False).get("root_result"):
        # A game of scores: the values themselves.
        assert isinstance(plain, np.ndarray) and plain.tolist() == want_codes
        assert t.query_many(positions, errors="mask").tolist() == got.tolist()
        return
    # A game with outcomes: results and remoteness, as `query --batch --json` gives them
    # (never the stored codes).
    answers = cli.batch_json(path, good)
    assert isinstance(plain, retro.Outcomes) and len(plain) == len(good)
    assert plain.result.tolist() == [a["result"] for a in answers]
    assert plain.remoteness.dtype == np.int64
    assert plain.remoteness.tolist() == [a["remoteness"] for a in answers]
    assert not plain.mask.any()
    masked = t.query_many(positions, errors="mask")
    assert list(np.flatnonzero(masked.mask)) == bad
    assert isinstance(masked.result, np.ma.MaskedArray) and isinstance(masked.remoteness, np.ma.MaskedArray)
    assert list(np.flatnonzero(np.ma.getmaskarray(masked.result))) == bad
    assert masked.result.compressed().tolist() == plain.result.tolist()
    assert masked.remoteness.compressed().tolist() == plain.remoteness.tolist()


def test_query_many_refuses_what_is_not_a_list_of_positions(tables):
    t = retro.open(tables["young-sample"])
    with pytest.raises(TypeError):
        t.query_many("1,0")
    with pytest.raises(TypeError, match=r"positions\[1\] is a int"):
        t.query_many(["1,0", 3])
    with pytest.raises(ValueError, match="line break"):
        t.query_many(["1,0\n2,0"])
    assert t.query_many([]).tolist() == []


@pytest.mark.parametrize("name", ["young-sample", "twins-sample1-moves", "ttt", "young-10x10-compact", "quixo-3x3",
                                  "teeko-3x3s2", "teeko-3x3s2-unfolded"])
def test_attributes_and_info_equal_info_json(cli, tables, name):
    path = tables[name]
    t = retro.open(path)
    want = json.loads(cli.run("info", str(path), "--json").stdout)
    assert t.info() == want
    unchecked = t.info(check=False)
    assert "checksum_ok" not in unchecked
    assert unchecked == {k: v for k, v in want.items() if k != "checksum_ok"}
    for key in ("game", "board", "encoding", "positions", "entries", "symmetries", "root",
                "layer_sizes", "layer_positions"):
        assert getattr(t, key) == want[key], key
    # A folded table's layers are its entries; they answer for its positions.
    assert sum(t.layer_sizes) == t.entries and sum(t.layer_positions) == t.positions
    assert (t.entries < t.positions) == (t.symmetries > 1)
    assert t.root_code == want.get("root_code", want.get("root_value"))
    if "root_result" in want:
        # A game with outcomes: its root is a result and a remoteness; the stored code is
        # not offered as a value.
        assert (t.root_result, t.root_remoteness) == (want["root_result"], want["root_remoteness"])
        with pytest.raises(AttributeError, match="root_result"):
            t.root_value
    else:
        assert t.root_value == want["root_value"]
        assert t.root_result is None and t.root_remoteness is None
    assert len(t) == want["positions"]


def test_position_and_rank_round_trip(tables):
    t = retro.open(tables["twins-sample1"])
    for k, n in enumerate(t.layer_sizes):
        for rank in {0, n // 2, n - 1}:
            assert t.rank(t.position(k, rank)) == (k, rank)
    with pytest.raises(IndexError):
        t.position(0, 1)
    with pytest.raises(IndexError, match="out of range"):
        t.position(len(t.layer_sizes), 0)


def test_a_drawn_line_that_goes_round_says_where(cli, tmp_path):
    # Morris's start is a draw whose best line comes back to a position it has been at.
    path = tmp_path / "m.retro"
    retro.build("morris", "six stones=3", path)
    t = retro.open(path)
    line = t.pv("start")
    last = line[-1]
    assert last["note"] == f"the position after ply {len(line)} repeats ply {last['repeats']} up to symmetry: a draw"
    assert 0 < last["repeats"] < len(line)
    assert all("note" not in step for step in line[:-1])
    want = json.loads(cli.run("query", str(path), "start", "--json", "--pv").stdout)
    assert line == want["pv"]
