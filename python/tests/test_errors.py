"""Damaged, truncated, foreign and missing tables, and bad positions: Python exceptions
with the command line's one-line message, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

import retro
from conftest import all_positions, copy


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


def test_damaged_values_raise_table_error(cli, tables, tmp_path):
    path = copy(tables["twins-sample1"], tmp_path / "damaged.retro")
    # A value in the middle of the file: a middle layer's (the header and the root, which
    # opening reads, are intact).
    flip(path, path.stat().st_size // 2)
    t = retro.open(path)
    done = cli.run("query", str(path), "--batch", input="".join(p + "\n" for p in all_positions(tables["twins-sample1"])), check=False)
    assert done.returncode == 1
    with pytest.raises(retro.TableError) as e:
        t.query_many(all_positions(tables["twins-sample1"]))
    assert done.stderr.strip() == f"error: {e.value}"
    assert "checksum mismatch in layer" in str(e.value)
    damaged = int(str(e.value).split("layer ")[1].split(":")[0])
    with pytest.raises(retro.TableError):
        t.layer(damaged)
    with pytest.raises(retro.TableError) as e:
        t.info()
    assert cli.error("info", str(path), "--json") == str(e.value)
    assert issubclass(retro.TableError, Exception)


@pytest.mark.parametrize("damage", ["header", "truncated", "foreign", "empty"])
def test_unreadable_tables_raise_table_error(cli, tables, tmp_path, damage):
    path = copy(tables["young-sample"], tmp_path / "bad.retro")
    if damage == "header":
        flip(path, 20)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif damage == "foreign":
        path.write_text("position,stones,value\n0,0,2\n")
    else:
        path.write_bytes(b"")
    with pytest.raises(retro.TableError) as e:
        retro.open(path)
    assert cli.error("info", str(path)) == str(e.value)


def test_missing_file_and_directory(cli, tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        retro.open(tmp_path / "missing.retro")
    assert cli.error("info", str(tmp_path / "missing.retro")) == str(e.value)
    # Not a regular file: not a table.
    with pytest.raises(retro.TableError) as e:
        retro.open(tmp_path)
    assert cli.error("info", str(tmp_path)) == str(e.value)


@pytest.mark.parametrize(
    "name, position",
    [("young-sample", "2,2,2"), ("young-sample", "o.x/.o./..."), ("twins-sample1", "1,0"),
     ("ttt", "ooo/xx./xx."), ("connect-4x4k3", "x.../..../..../...."), ("quixo-3x3", "nonsense"),
     ("young-sample", "")],
)
def test_bad_positions_raise_value_error(cli, tables, name, position):
    t = retro.open(tables[name])
    message = cli.error("query", str(tables[name]), position)
    for call in (t.query, t.pv, t.rank):
        if call == t.rank and "cannot arise" in message:
            continue  # a position the table holds, which play cannot reach: it has a rank
        with pytest.raises(ValueError) as e:
            call(position)
        assert str(e.value) == message


def test_bad_arguments_are_type_errors_not_crashes(tables):
    t = retro.open(tables["young-sample"])
    with pytest.raises(TypeError):
        t.query(3)  # type: ignore[arg-type]
    with pytest.raises((TypeError, OverflowError)):
        t.layer(-1)
