"""Layers as NumPy arrays, and tables as DataFrames, equal `retro export`'s rows; a folded
table's orbit sizes weigh its rows into the unfolded table's counts."""

from __future__ import annotations

import numpy as np
import pytest

import retro
from conftest import TABLES

#: export's integer columns; the others are text (empty for none).
INTEGERS = {"stones", "value", "value_to_move", "remoteness", "x_in_hand", "o_in_hand"}
#: export's integer columns that are empty where nobody moves.
NULLABLE = {"best_row", "best_col", "best_column", "best_from_row", "best_from_col"}


def column(rows, name):
    if name in INTEGERS:
        return [int(r[name]) for r in rows]
    if name in NULLABLE:
        return [int(r[name]) if r[name] else None for r in rows]
    if name == "reachable":
        # Empty where the table cannot know (no start, and a game whose positions do not
        # show their history).
        return [r[name] == "true" if r[name] else None for r in rows]
    return [r[name] or None for r in rows]


def value_name(rows):
    """Export's value column: `value_to_move` for a game whose values are for the side to
    move (Teeko, Quixo, Morris), else `value`."""
    return "value_to_move" if "value_to_move" in rows[0] else "value"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_layer_arrays_equal_export_rows(tables, export_rows, name):
    t = retro.open(tables[name])
    rows = export_rows(name)
    # One row per entry: per orbit of symmetric positions in a folded table.
    assert len(rows) == t.entries
    start = 0
    for k, size in enumerate(t.layer_sizes):
        part = rows[start:start + size]
        start += size
        plain = t.layer(k)
        assert len(plain) == size and plain.stones == k
        assert plain.value.dtype == np.int64 and plain.rank.dtype == np.uint64
        assert plain.rank.tolist() == list(range(size))
        assert plain.value.tolist() == column(part, value_name(rows))
        assert plain.position is None and plain.best_move is None
        # The positions the rows stand for: one each unless the table folds.
        assert plain.orbit_size.dtype == np.int64 and (plain.orbit_size >= 1).all()
        assert plain.orbit_size.sum() == t.layer_positions[k]
        if t.symmetries == 1:
            assert (plain.orbit_size == 1).all()
        assert plain.reachable.dtype == np.bool_
        assert plain.reachable.tolist() == column(part, "reachable")
        assert plain.best_numbers == {}
        full = t.layer(k, positions=True, moves=True)
        numbers = [c for c in rows[0] if c in NULLABLE]
        assert list(full.best_numbers) == numbers
        for c in numbers:
            assert getattr(full, c).dtype == np.int64
            assert getattr(full, c).tolist() == column(part, c), c
        assert full.value.tolist() == plain.value.tolist()
        assert full.orbit_size.tolist() == plain.orbit_size.tolist()
        assert full.position.tolist() == column(part, "position")
        assert full.to_move.tolist() == column(part, "to_move")
        assert full.best_move.tolist() == column(part, "best_move")
        if "result" in rows[0]:
            assert plain.result.tolist() == column(part, "result")
            assert plain.remoteness.tolist() == column(part, "remoteness")
        else:
            assert plain.result is None and plain.remoteness is None
    assert start == len(rows)


@pytest.mark.parametrize("name", ["young-sample", "twins-sample1-moves", "ttt", "connect-4x4k3", "quixo-3x3",
                                  "teeko-3x3s2-unfolded"])
def test_dataframes_equal_export_rows(tables, export_rows, name):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    t = retro.open(tables[name])
    rows = export_rows(name)
    df = t.to_pandas()
    # Export's columns, in its order (a later export may add columns of its own), then
    # rank and orbit_size.
    shared = [c for c in rows[0] if c in df.columns and c != "orbit_size"]
    assert list(df.columns) == shared + ["rank", "orbit_size"]
    # Every column export writes is there.
    assert set(rows[0]) <= set(df.columns)
    # The best move's numbers are nullable integers, missing where nobody moves.
    for c in shared:
        if c in NULLABLE:
            assert str(df[c].dtype) == "Int64", (c, df[c].dtype)
    assert df["reachable"].dtype == bool
    # A folded table's export writes each entry's orbit size too: the same numbers.
    if "orbit_size" in rows[0]:
        assert df["orbit_size"].tolist() == [int(v) for v in column(rows, "orbit_size")]
    assert {"position", "stones", "to_move", value_name(rows), "best_move"} <= set(shared)
    # Values for the side to move are named so, never `value`, as export names them.
    assert ("value" in df.columns) == (value_name(rows) == "value")
    for c in shared:
        got = [None if v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v
               for v in df[c].tolist()]
        assert got == column(rows, c), c
    assert df["rank"].tolist() == [r for n in t.layer_sizes for r in range(n)]
    assert df["orbit_size"].sum() == t.positions
    # Rows in layer order: each layer's orbit sizes add up to its positions (a row's
    # `stones` is its stones on the board, which Quixo's layer numbers are not).
    layers = np.repeat(np.arange(len(t.layer_sizes)), t.layer_sizes)
    assert df.groupby(layers)["orbit_size"].sum().tolist() == t.layer_positions
    polars = t.to_polars()
    assert polars.columns == list(df.columns)
    for c in shared:
        assert polars[c].to_list() == column(rows, c), c
    # One layer, values only.
    k = len(t.layer_sizes) // 2
    one = t.to_pandas(k, positions=False, moves=False)
    assert "position" not in one.columns and "best_move" not in one.columns
    assert one[value_name(rows)].tolist() == t.layer(k).value.tolist()
    first = sum(t.layer_sizes[:k])
    assert one["stones"].tolist() == df["stones"][first:first + t.layer_sizes[k]].tolist()
    assert one["orbit_size"].tolist() == t.layer(k).orbit_size.tolist()
    assert isinstance(df, pd.DataFrame) and isinstance(polars, pl.DataFrame)
    pa = pytest.importorskip("pyarrow")
    arrow = t.to_arrow()
    assert isinstance(arrow, pa.Table) and arrow.column_names == list(df.columns)
    for c in shared:
        assert arrow[c].to_pylist() == column(rows, c), c
    for c in shared:
        if c in NULLABLE:
            assert arrow[c].type == pa.int64() and arrow[c].null_count == sum(
                1 for r in rows if not r[c])


def test_layer_out_of_range(tables):
    t = retro.open(tables["young-sample"])
    with pytest.raises(ValueError, match="out of range"):
        t.layer(len(t.layer_sizes))


@pytest.mark.parametrize("name", ["connect-4x4k3", "connect-4x4k3-compact", "quixo-4x4-min16-unfolded", "teeko-4x4s3"])
def test_slices_and_chunks_equal_the_whole_layer(cli, tables, tmp_path, name):
    if name.endswith("-compact"):
        # Blocks of 4096 values: slices that start and end inside them.
        path = tmp_path / "t.retro"
        cli.run("build", "connect", "4x4k3", "--compact", "-o", str(path), "--quiet")
    elif name == "quixo-4x4-min16-unfolded":
        # Every position with all 16 cubes taken: its largest layer (8 cubes each) is
        # 25,740 positions, more than one chunk (3 x 3's layers are all smaller).
        path = tmp_path / "t.retro"
        cli.run("build", "quixo", "4x4 min=16", "--no-fold", "-o", str(path), "--quiet")
    elif name == "teeko-4x4s3":
        # Folded, with a layer of more than one chunk: its orbit sizes sliced too.
        path = tmp_path / "t.retro"
        cli.run("build", "teeko", "4x4s3", "-o", str(path), "--quiet")
        assert retro.open(path).symmetries > 1
    else:
        path = tables[name]
    t = retro.open(path)
    k = max(range(len(t.layer_sizes)), key=lambda k: t.layer_sizes[k])
    size = t.layer_sizes[k]
    assert size > 10_000  # more than one chunk of the extension's parallel work
    whole = t.layer(k, positions=True, moves=True)

    def same(part, start, stop):
        assert part.stones == k and part.start == start and len(part) == stop - start
        assert part.rank.tolist() == list(range(start, stop))
        for name, column in whole.columns().items():
            if name != "stones":
                assert part.columns()[name].tolist() == column[start:stop].tolist(), name

    for start, stop in [(0, 1), (5, 9000), (4095, 4097), (8191, 8193), (size - 3, size), (size, size)]:
        same(t.layer(k, start, stop, positions=True, moves=True), start, stop)
    # As a slice reads: the end by default, negative from the end, past the end cut.
    same(t.layer(k, size - 5, positions=True, moves=True), size - 5, size)
    same(t.layer(k, -4, positions=True, moves=True), size - 4, size)
    same(t.layer(k, 3, size + 100, positions=True, moves=True), 3, size)
    chunks = list(t.layer_chunks(k, 4096, positions=True, moves=True))
    assert [len(c) for c in chunks[:-1]] == [4096] * (len(chunks) - 1)
    assert sum(len(c) for c in chunks) == size
    for c in chunks:
        same(c, c.start, c.start + len(c))
    with pytest.raises(ValueError):
        next(t.layer_chunks(k, 0))


def test_a_layer_larger_than_memory_is_refused_before_it_is_read(tables, monkeypatch):
    t = retro.open(tables["quixo-3x3"])
    k = 8
    size = t.layer_sizes[k]
    row = t._row_bytes(k, False, False)
    # The memory available is what the command line's checks read (MemAvailable); here,
    # room for a tenth of the layer.
    monkeypatch.setattr(retro, "_available_memory", lambda: size * row // 10)
    with pytest.raises(MemoryError) as e:
        t.layer(k)
    message = str(e.value)
    # Rows are entries: one per orbit of symmetric positions in this folded table.
    assert t.symmetries > 1
    assert f"layer {k}" in message and f"{size:,} entries" in message
    assert "available" in message and "layer_chunks" in message
    # Text costs more: a slice that fits as numbers may not with its positions' text.
    part = t.layer(k, 0, size // 20)
    assert len(part) == size // 20
    with pytest.raises(MemoryError):
        t.layer(k, 0, size // 20, positions=True)
    # In slices it streams.
    assert sum(len(c) for c in t.layer_chunks(k, size // 20)) == size
    # Where the memory cannot be read, nothing is refused (as the command line).
    monkeypatch.setattr(retro, "_available_memory", lambda: None)
    assert len(t.layer(k)) == size


def test_the_estimate_covers_what_a_layer_takes(cli, tmp_path):
    """The estimate the check compares is at least what the process's peak memory grows
    by while it reads a layer, give or take a few MiB that do not grow with the layer
    (measured in a process of its own for each set of columns)."""
    import subprocess
    import sys

    path = tmp_path / "c54.retro"
    # Every position (--no-fold): the largest layer has 978,120 rows.
    cli.run("build", "connect", "5x4k4", "--no-fold", "-o", str(path), "--quiet")
    for positions, moves in [(False, False), (True, False), (False, True)]:
        script = f"""
import resource, retro
t = retro.open({str(path)!r})
k = max(range(len(t.layer_sizes)), key=lambda k: t.layer_sizes[k])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
layer = t.layer(k, positions={positions}, moves={moves})
layer.rank
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
print(len(layer), grown, len(layer) * t._row_bytes(k, {positions}, {moves}))
"""
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        rows, grown, estimate = map(int, done.stdout.split())
        assert rows > 500_000
        assert grown <= estimate + (16 << 20), (positions, moves, rows, grown, estimate)


def test_morris_rows_carry_the_stones_on_the_board_and_in_hand(cli, tmp_path):
    """Morris numbers its layers by placements and each side's stones: a row's ``stones``
    counts the stones on the board, and ``x_in_hand``/``o_in_hand`` the stones in hand,
    as export writes them."""
    import csv

    path = tmp_path / "m.retro"
    cli.run("build", "morris", "six stones=3", "-o", str(path), "--quiet")
    out = tmp_path / "m.csv"
    cli.run("export", str(path), "--csv", "-o", str(out), "--quiet")
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    t = retro.open(path)
    start = 0
    names = [c for c in rows[0] if c != "orbit_size"]
    for k, size in enumerate(t.layer_sizes):
        part = rows[start:start + size]
        start += size
        cols = t.layer(k, positions=True, moves=True).columns()
        assert [c for c in cols if c not in ("rank", "orbit_size")] == names
        for c in names:
            got = cols[c].tolist()
            assert got == column(part, c), (k, c)
    assert start == len(rows)


def test_morris_reachable_comes_from_the_forward_pass(cli, tmp_path):
    """Morris positions do not show whether play reaches them: the layers' `reachable`
    equals export's, which comes from the forward pass from the start, and is false on
    some entries that pass every local check."""
    path = tmp_path / "six3.retro"
    cli.run("build", "morris", "six stones=3", "-q", "-o", str(path))
    csv_path = tmp_path / "six3.csv"
    cli.run("export", str(path), "--csv", "-q", "-o", str(csv_path))
    import csv

    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    t = retro.open(path)
    start = 0
    unreached = 0
    for k, size in enumerate(t.layer_sizes):
        part = rows[start:start + size]
        start += size
        got = t.layer(k).reachable.tolist()
        assert got == column(part, "reachable"), k
        unreached += got.count(False)
    assert unreached > 0
