"""A position's moves and best move from Python: the command line's `query`, as `export`
writes a best move."""

from __future__ import annotations

import json

import pytest

import retro


@pytest.mark.parametrize(
    "name, position",
    [
        ("ttt", "x../.o./..."),
        ("connect-4x4k3", "..../..../..../x..."),
        ("teeko-3x3s2", "x../.o./..."),
        ("quixo-3x3", "x../.../...:o"),
        ("young-sample", "1,0"),
    ],
)
def test_moves_and_best_move_are_querys(cli, tables, name, position):
    t = retro.open(tables[name])
    answer = json.loads(cli.run("query", str(tables[name]), position, "--json").stdout)
    moves = t.moves(position)
    assert len(moves) == len(answer["moves"]) > 0
    for got, want in zip(moves, answer["moves"]):
        assert {k: v for k, v in got.items() if k != "move"} == {
            k: v for k, v in want.items() if k != "move"}
        assert got["move"] == want.get("move", got["move"])
        assert isinstance(got["move"], str) and got["move"]
    # The best move is export's: the first best in query's order, written as export does.
    best = t.best_move(position)
    assert best in [m["move"] for m in moves]
    k, rank = t.rank(position)
    row = t.layer(k, rank, rank + 1, moves=True)
    assert row.best_move.tolist() == [best] or t.symmetries > 1


def test_no_move_where_play_has_ended(tables):
    t = retro.open(tables["ttt"])
    assert t.moves("xxx/oo./...") == []
    assert t.best_move("xxx/oo./...") is None
    with pytest.raises(ValueError):
        t.best_move("not a position")


def test_a_table_closes_on_leaving_with(tables):
    with retro.open(tables["ttt"]) as t:
        assert t.best_move(".../.../...") is not None
    assert t.closed
    with pytest.raises(ValueError):
        t.best_move(".../.../...")
