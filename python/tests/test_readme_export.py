"""docs/commands.md's counting example for `retro export` (pandas and polars) prints what its
comments say: tic-tac-toe's reachable positions and x's wins among them, counted over the
export's `reachable` column, against a brute force written here."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from conftest import REPO
from test_readme import reachable_boards, x_wins


def counting_blocks() -> list[str]:
    text = (REPO / "docs" / "commands.md").read_text()
    section = text.split("Counting wins over the positions play can reach", 1)[1]
    section = section.split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "a pandas block and a polars block"
    return blocks


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_export_counting_example(cli, tmp_path, monkeypatch, library):
    pytest.importorskip(library)
    if library == "pandas":
        pytest.importorskip("pyarrow")
    monkeypatch.chdir(tmp_path)
    # The commands docs/commands.md shows before the snippets.
    cli.run("build", "mnk", "3x3k3", "-o", "ttt.retro", "-q")
    cli.run("export", "ttt.retro", "-o", "ttt.parquet", "-q")
    block = counting_blocks()[0 if library == "pandas" else 1]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, f"docs/commands.md ({library} counting)", "exec"), {})
    boards = reachable_boards()
    wins = sum(1 for b in boards if x_wins(b) == 1)
    assert (len(boards), wins) == (5478, 2936)
    # What the snippet prints, and what its comment says.
    assert printed.getvalue().split() == [str(len(boards)), str(wins)]
    assert f"# {len(boards)} {wins}" in block
