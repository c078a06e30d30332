"""Layers as NumPy arrays, and tables as DataFrames, equal `retro export`'s rows."""

from __future__ import annotations

import numpy as np
import pytest

import retro
from conftest import TABLES

#: export's integer columns; the others are text (empty for none).
INTEGERS = {"stones", "value", "remoteness"}


def column(rows, name):
    if name in INTEGERS:
        return [int(r[name]) for r in rows]
    return [r[name] or None for r in rows]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_layer_arrays_equal_export_rows(tables, export_rows, name):
    t = retro.open(tables[name])
    rows = export_rows(name)
    assert len(rows) == t.positions
    start = 0
    for k, size in enumerate(t.layer_sizes):
        part = rows[start:start + size]
        start += size
        plain = t.layer(k)
        assert len(plain) == size and plain.stones == k
        assert plain.value.dtype == np.int64 and plain.rank.dtype == np.uint64
        assert plain.rank.tolist() == list(range(size))
        assert plain.value.tolist() == column(part, "value")
        assert plain.position is None and plain.best_move is None
        full = t.layer(k, positions=True, moves=True)
        assert full.value.tolist() == plain.value.tolist()
        assert full.position.tolist() == column(part, "position")
        assert full.to_move.tolist() == column(part, "to_move")
        assert full.best_move.tolist() == column(part, "best_move")
        if "result" in rows[0]:
            assert plain.result.tolist() == column(part, "result")
            assert plain.remoteness.tolist() == column(part, "remoteness")
        else:
            assert plain.result is None and plain.remoteness is None
    assert start == len(rows)


@pytest.mark.parametrize("name", ["young-sample", "twins-sample1-moves", "ttt", "connect-4x4k3", "quixo-3x3"])
def test_dataframes_equal_export_rows(tables, export_rows, name):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    t = retro.open(tables[name])
    rows = export_rows(name)
    df = t.to_pandas()
    # Export's columns, in its order (a later export may add columns of its own), then rank.
    shared = [c for c in rows[0] if c in df.columns]
    assert list(df.columns) == shared + ["rank"]
    assert {"position", "stones", "to_move", "value", "best_move"} <= set(shared)
    for c in shared:
        got = [None if (isinstance(v, float) and np.isnan(v)) else v for v in df[c].tolist()]
        assert got == column(rows, c), c
    assert df["rank"].tolist() == [r for n in t.layer_sizes for r in range(n)]
    polars = t.to_polars()
    assert polars.columns == list(df.columns)
    for c in shared:
        assert polars[c].to_list() == column(rows, c), c
    # One layer, values only.
    k = len(t.layer_sizes) // 2
    one = t.to_pandas(k, positions=False, moves=False)
    assert "position" not in one.columns and "best_move" not in one.columns
    assert one["value"].tolist() == t.layer(k).value.tolist()
    assert set(one["stones"]) == {k}
    assert isinstance(df, pd.DataFrame) and isinstance(polars, pl.DataFrame)


def test_layer_out_of_range(tables):
    t = retro.open(tables["young-sample"])
    with pytest.raises(ValueError, match="out of range"):
        t.layer(len(t.layer_sizes))
