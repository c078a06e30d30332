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
    [("young-sample", "2,2,2"), ("young-sample", "o.x/.o./..."),
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


def test_a_cell_for_a_position_says_what_the_text_is_not(cli, tables):
    """A twins cell where a position belongs: the command line points to its own commands
    for moves; Python, as the server, says what the text is not."""
    t = retro.open(tables["twins-sample1"])
    assert "looks like a move" in cli.error("query", str(tables["twins-sample1"]), "1,0")
    for call in (t.query, t.pv, t.rank):
        with pytest.raises(ValueError) as e:
            call("1,0")
        assert 'this is a twins table; "1,0" looks like a young position' in str(e.value)


def test_bad_arguments_are_type_errors_not_crashes(tables):
    t = retro.open(tables["young-sample"])
    with pytest.raises(TypeError):
        t.query(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="out of range"):
        t.layer(-1)
    with pytest.raises(TypeError):
        t.layer("1")  # type: ignore[arg-type]


@pytest.mark.parametrize("change", ["rewrite", "truncate"])
def test_a_table_written_over_in_place_answers_nothing(tables, tmp_path, change):
    """A table copied over (`cp other.retro t.retro`: the same file, new bytes) or cut
    short while it is open: every answer raises TableError, as `query`, `export` and `serve`
    refuse, instead of answering from the new bytes."""
    path = copy(tables["quixo-3x3"], tmp_path / "t.retro")
    t = retro.open(path)
    assert t.query("empty")["result"] == "win"
    assert len(t.pv("empty")) > 0
    data = path.read_bytes()
    with open(path, "r+b") as f:
        f.truncate(0)
        if change == "rewrite":
            # Another table of the same board: its values all zero (draws).
            f.write(data[: -t.positions] + bytes(t.positions))
        else:
            f.write(data[:100])
    calls = {
        "query": lambda: t.query("empty"),
        "query pv": lambda: t.query("empty", pv=True),
        "pv": lambda: t.pv("empty"),
        "query_many": lambda: t.query_many(["empty"]),
        "layer": lambda: t.layer(0),
        "info": lambda: t.info(check=False),
    }
    for name, call in calls.items():
        with pytest.raises(retro.TableError, match="changed on disk") as e:
            call()
        assert "written over in place" in str(e.value), name


def test_with_closes_the_table(tables):
    with retro.open(tables["young-sample"]) as t:
        assert not t.closed
        assert t.query("0,0")["value"] == 2
    assert t.closed
    # The header's attributes still answer; nothing reads the file.
    assert t.game == "young" and t.root_value == 2
    for call in (lambda: t.query("0,0"), lambda: t.query_many(["0,0"]), lambda: t.layer(0),
                 lambda: t.info(), lambda: t.pv("0,0")):
        with pytest.raises(ValueError, match="closed"):
            call()
    t.close()  # a second close is no error


def test_bad_lines_keep_a_count_and_a_few_messages(tables):
    """A batch of bad lines keeps a count and a few messages, not one per line (10 million
    garbage lines took 6.5 GB), and errors="raise" stops at the first bad line."""
    t = retro.open(tables["young-sample"])
    n = 100_000
    text = "\n".join(["garbage"] * n)
    # errors="mask": every line masked and counted, 8 messages kept.
    raw = t._raw.values(text, n, True, True)
    assert raw["bad"] == n
    assert len(raw["messages"]) == 8
    assert [i for i, _ in raw["messages"]] == list(range(8))
    assert bytes(raw["mask"]) == b"\x01" * n
    # errors="raise": each chunk of 8192 lines stops at its first bad line, and a chunk
    # that starts after a bad line is found is not read.
    raw = t._raw.values(text, n, True, False)
    assert 1 <= raw["bad"] <= -(-n // 8192)
    assert raw["messages"][0][0] == 0
    with pytest.raises(ValueError, match=r"^positions\[0\]: bad young position") as e:
        t.query_many(["garbage"] * n)
    assert "more" not in str(e.value)
    masked = t.query_many(["0,0"] + ["garbage"] * n + ["1,0"], errors="mask")
    assert masked.mask.sum() == n and masked[0] == 2 and masked[-1] == 0
