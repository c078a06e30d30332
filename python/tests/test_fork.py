"""In a process forked after retro's parallel work ran in its parent (a `multiprocessing`
pool with the fork start method), `query_many`, `layer`, `solve` and `build` answer:
rayon's global pool has no workers in a forked child, so the child works on a pool of its
own. Each call is bounded by a timeout, so that a child that hangs fails the test instead
of hanging it."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

import retro
from conftest import REPO

pytestmark = [
    pytest.mark.skipif(sys.platform != "linux", reason="the fork start method"),
    # Python 3.12 and later warn that forking a process with threads may deadlock: the
    # point here is that it does not.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

#: A child that has not answered in this long is hung (each call takes well under a
#: second).
HANG = 60


def query_many(path: str, n: int) -> int:
    t = retro.open(path)
    positions = [t.position(k, r) for k, size in enumerate(t.layer_sizes) for r in range(size)]
    # More than one chunk of parallel work (8192 positions).
    got = t.query_many(positions[:n], errors="mask", codes=True)
    return int(got.count())


def layer(path: str, k: int) -> int:
    return len(retro.open(path).layer(k))


def solve(game: str, board: str):
    return retro.solve(game, board)


def build(board: str, path: str, encoding: str) -> int:
    extra = {"values_every": 4} if encoding == "moves" else {}
    return retro.build("young", board, path, encoding=encoding, **extra)["positions"]


def test_a_forked_child_answers(tables, tmp_path):
    path = str(tables["connect-4x4k3"])
    t = retro.open(path)
    # Parallel work in the parent first: its global pool's workers start here. (Layer 13
    # of the table, folded by the mirror, has 17,160 entries for 34,320 positions.)
    assert len(t.layer(13)) == 17160
    want = query_many(path, 20_000)
    y10 = str(REPO / "tables" / "young-10x10.txt")
    want_solve = retro.solve("young", y10)
    ctx = multiprocessing.get_context("fork")
    calls = [
        (query_many, (path, 20_000), want),
        (layer, (path, 13), 17160),
        (solve, ("young", y10), want_solve),
        (solve, ("teeko", "3x3s2"), retro.solve("teeko", "3x3s2")),
    ]
    # The table writer packs a compact table and a table of best moves on a thread of
    # its own: it works in the child too.
    for encoding in ("plain", "compact", "moves"):
        calls.append((build, (y10, str(tmp_path / f"{encoding}.retro"), encoding), 184756))
    with ctx.Pool(1) as pool:
        pending = [(f.__name__, pool.apply_async(f, args), want) for f, args, want in calls]
        for name, result, expected in pending:
            try:
                assert result.get(timeout=HANG) == expected, name
            except multiprocessing.TimeoutError:
                pytest.fail(f"{name} in a forked child did not answer in {HANG} s")
    # The tables the child built are the parent's.
    for encoding in ("plain", "compact", "moves"):
        mine = tmp_path / f"mine-{encoding}.retro"
        extra = {"values_every": 4} if encoding == "moves" else {}
        retro.build("young", y10, mine, encoding=encoding, **extra)
        assert mine.read_bytes() == (tmp_path / f"{encoding}.retro").read_bytes()


def test_a_child_of_a_forked_child_answers(tables):
    path = str(tables["connect-4x4k3"])
    assert len(retro.open(path).layer(13)) == 17160
    want = query_many(path, 20_000)
    # The child works (on its own pool), then forks a child of its own, which starts
    # another.
    assert _in_child(_child_and_grandchild, path) == (want, want)


def _in_child(target, *args):
    """``target(*args)``'s answer from a forked process, or an error if it does not
    answer in ``HANG`` seconds."""
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_answer, args=(writer, target, *args))
    child.start()
    try:
        if not reader.poll(HANG):
            raise AssertionError(f"{target.__name__} in a forked child did not answer in {HANG} s")
        return reader.recv()
    finally:
        child.kill()
        child.join()


def _answer(conn, target, *args) -> None:
    conn.send(target(*args))


def _child_and_grandchild(path: str):
    return query_many(path, 20_000), _in_child(query_many, path, 20_000)
