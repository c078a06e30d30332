"""The README's notebook-style example runs, and its numbers are right: tic-tac-toe's
against a brute force written here, connect 5 x 4's against the command line."""

from __future__ import annotations

import re
from functools import lru_cache

import pytest

from conftest import REPO

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def readme_example() -> str:
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def winner(board: str):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@lru_cache(maxsize=None)
def x_wins(board: str) -> int:
    """+1 if x wins with best play from this board, -1 if o does, 0 for a tie."""
    w = winner(board)
    if w:
        return 1 if w == "x" else -1
    if "." not in board:
        return 0
    mover = "x" if board.count("x") == board.count("o") else "o"
    results = [x_wins(board[:i] + mover + board[i + 1:]) for i in range(9) if board[i] == "."]
    return max(results) if mover == "x" else min(results)


def reachable_boards():
    seen = set()
    todo = ["." * 9]
    while todo:
        board = todo.pop()
        if board in seen:
            continue
        seen.add(board)
        if winner(board) or "." not in board:
            continue
        mover = "x" if board.count("x") == board.count("o") else "o"
        todo.extend(board[:i] + mover + board[i + 1:] for i in range(9) if board[i] == ".")
    return seen


def test_readme_example(cli, tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(readme_example(), "README.md (Python example)", "exec"), scope)

    boards = reachable_boards()
    assert len(boards) == 5478
    assert scope["reachable"] == len(boards)
    assert scope["first_wins"] == sum(1 for b in boards if x_wins(b) == 1)
    # The DataFrame the example filtered holds exactly the reachable boards.
    assert {p.replace("/", "") for p in scope["boards"].position} == boards

    share = scope["shares"]
    c54 = scope["c54"]
    assert sorted(share) == list(range(21))
    assert all(0.0 <= v <= 1.0 for v in share.values())
    assert share[0] == 0.0  # 5 x 4 is a tie with best play (root value 0)
    assert list(scope["share"].index) == list(range(21))
    # The first layers against the command line: its batch refuses the unreachable
    # positions (`error`) and prints the others' values.
    for k in range(9):
        positions = list(c54.layer(k, positions=True).position)
        done = cli.run("query", "c54.retro", "--batch", "--codes", input="".join(p + "\n" for p in positions), check=False)
        values = [int(v) for v in done.stdout.split() if v != "error"]
        assert share[k] == pytest.approx(sum(v > 0 for v in values) / len(values)), k
    if "matplotlib" in scope:
        assert (tmp_path / "connect-5x4-wins.png").stat().st_size > 0


def test_module_docstring_example(cli, tmp_path, monkeypatch):
    """The example at the top of `retro`'s docstring (what `help(retro)` shows)."""
    import doctest

    import retro

    (tmp_path / "tables").mkdir()
    cli.run("build", "young", str(REPO / "tables/young-sample.txt"), "-o",
            str(tmp_path / "tables/young-sample.retro"), "--quiet")
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(retro)
    assert result.attempted >= 3 and result.failed == 0
