"""retro.build and retro.solve: the command line's tables and values, progress, the GIL
released, and a build stopped by Ctrl-C or by its callback resuming where it stopped."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

import retro
from conftest import REPO

SAMPLE = REPO / "tables" / "young-sample.txt"


def cli_build(cli, tmp_path: Path, name: str, *args: str) -> Path:
    path = tmp_path / f"cli-{name}.retro"
    cli.run("build", *args, "-o", str(path), "--quiet")
    return path


@pytest.mark.parametrize(
    "game, board, kwargs, flags",
    [
        ("young", SAMPLE, {}, []),
        ("young", str(REPO / "tables" / "young-10x10.txt"), {"encoding": "compact"}, ["--compact"]),
        ("twins", REPO / "tables" / "twins-sample1.txt", {"encoding": "moves", "values_every": 2}, ["--moves", "2"]),
        ("mnk", "3x3k3", {"threads": 1}, ["--threads", "1"]),
        ("mnk", "3x4k3", {"fold": False}, ["--no-fold"]),
        ("connect", "4x4k3", {}, []),
        ("quixo", "3x3", {}, []),
        ("teeko", "3x3s2", {"encoding": "compact"}, ["--compact"]),
        ("quixo", "3x3", {"fold": False}, ["--no-fold"]),
        ("teeko", "3x3s2", {"fold": False, "encoding": "compact"}, ["--no-fold", "--compact"]),
    ],
)
def test_build_writes_the_command_lines_table(cli, tmp_path, game, board, kwargs, flags):
    path = tmp_path / "py.retro"
    report = retro.build(game, board, path, **kwargs)
    want_path = cli_build(cli, tmp_path, game, game, str(board), *flags)
    assert path.read_bytes() == want_path.read_bytes()
    want = json.loads(cli.run("build", game, str(board), "-o", str(want_path), "--quiet", "--json", "--fresh", *flags).stdout)
    info = json.loads(cli.run("info", str(want_path), "--json").stdout)
    if "root_result" in info:
        # A game with outcomes: the root as a result and a remoteness, and the stored
        # code named as one.
        assert set(report) == set(want)
        assert report["root_code"] == want["root_code"]
        assert (report["root_result"], report["root_remoteness"]) == (info["root_result"], info["root_remoteness"])
    else:
        assert set(report) == set(want)
        assert report["root_value"] == want["root_value"]
    for key in ("game", "board", "positions", "entries", "symmetries", "file_bytes", "value_bytes",
                "resumed_below"):
        assert report[key] == want[key], key
    # mnk, connect, Teeko, Quixo and Morris fold by default, one entry per orbit; fold=False keeps every
    # position.
    folds = game in ("mnk", "connect", "teeko", "quixo") and kwargs.get("fold", True)
    assert (report["symmetries"] > 1) == folds
    assert (report["entries"] < report["positions"]) == folds
    assert report["table"] == str(path)
    assert not Path(str(path) + ".partial").exists()


def test_build_from_the_boards_text(tmp_path):
    text = SAMPLE.read_text()
    report = retro.build("young", text, tmp_path / "t.retro")
    assert report["root_value"] == 2
    assert retro.open(tmp_path / "t.retro").query("empty")["value"] == 2


def test_solve_equals_the_command_line(cli, tables):
    assert retro.solve("young", SAMPLE) == int(cli.run("solve", "young", str(SAMPLE)).stdout)
    assert retro.solve("young", str(REPO / "tables/young-10x10.txt"), threads=1) == int(
        cli.run("solve", "young", str(REPO / "tables/young-10x10.txt")).stdout
    )
    # twins: the contest prints both final scores; solve gives the root's value, the
    # first player's score.
    first, _second = map(int, cli.run("solve", "twins", str(REPO / "tables/twins-sample2.txt")).stdout.split())
    assert retro.solve("twins", REPO / "tables/twins-sample2.txt") == first
    # The games with outcomes: the root's result and remoteness, as `info` says them; the
    # stored code only when asked for.
    for game, board, name in [("mnk", "3x3k3", "ttt"), ("teeko", "3x3s2", "teeko-3x3s2"),
                              ("quixo", "3x3", "quixo-3x3"), ("connect", "4x4k3", "connect-4x4k3")]:
        t = retro.open(tables[name])
        solved = retro.solve(game, board)
        assert isinstance(solved, retro.Outcome)
        assert solved == (t.root_result, t.root_remoteness)
        assert retro.solve(game, board, codes=True) == t.root_code
        # Folding changes the work, not the value.
        assert retro.solve(game, board, fold=False) == solved
    assert retro.solve("mnk", "3x3k3") == ("tie", 9)


@pytest.mark.parametrize(
    "call, args, cli_args",
    [
        (retro.build, ("young", "2 3\n1 2 3\n", "{tmp}/t.retro"), ("build", "young", "{board}", "-o", "{tmp}/t.retro")),
        (retro.build, ("connect", "9x9x", "{tmp}/t.retro"), ("build", "connect", "9x9x", "-o", "{tmp}/t.retro")),
        (retro.build, ("young", SAMPLE, "{tmp}"), ("build", "young", str(SAMPLE), "-o", "{tmp}")),
        (retro.build, ("young", SAMPLE, "{tmp}/t.retro"), None),
    ],
)
def test_bad_builds_raise_value_error_with_the_cli_message(cli, tmp_path, call, args, cli_args):
    board_file = tmp_path / "board.txt"
    board_file.write_text("2 3\n1 2 3\n")
    args = tuple(a.format(tmp=tmp_path) if isinstance(a, str) else a for a in args)
    if cli_args is None:
        # Options the command line has as flags.
        for kwargs in ({"encoding": "dense"}, {"encoding": "moves"}, {"values_every": 2},
                       {"encoding": "moves", "values_every": 0}, {"threads": 0}, {"threads": 100000}):
            with pytest.raises(ValueError):
                call(*args, **kwargs)
        return
    with pytest.raises(ValueError) as e:
        call(*args)
    message = cli.error(*(a.format(tmp=tmp_path, board=board_file) for a in cli_args))
    if "board.txt" in message:
        message = message.replace(str(board_file) + ": ", "")
    if "no such file, nor a" in message:
        # A bare word on the command line may name a file; to build() it is the board.
        assert f"({e.value})" in message
    else:
        assert str(e.value) == message


@pytest.fixture(scope="module")
def y14(cli, tmp_path_factory):
    """A board whose one-thread build takes over a second even on a quiet machine (young
    13 x 13 took 0.3 s, too few progress calls and ticks to count on), and the table the
    command line builds from it."""
    out = tmp_path_factory.mktemp("y14")
    board = out / "y14.txt"
    board.write_text(cli.run("gen", "young", "14x14", "--seed", "7").stdout)
    table = out / "cli.retro"
    cli.run("build", "young", str(board), "-o", str(table), "--quiet")
    return board, table


def test_progress_reports_and_the_gil_is_released(y14, tmp_path):
    board, want = y14
    calls = []
    ticks = []
    stop = threading.Event()

    def python_thread():
        # Runs only while the build has released the GIL.
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.01)

    other = threading.Thread(target=python_thread)
    other.start()
    try:
        retro.build("young", board, tmp_path / "t.retro", threads=1, progress=lambda *a: calls.append(a))
    finally:
        stop.set()
        other.join()
    assert (tmp_path / "t.retro").read_bytes() == want.read_bytes()
    total = 40116600
    assert calls[-1] == (total, total, 0)
    # The last call says the build is done, and it alone.
    assert sum(1 for c in calls if c[0] == total) == 1, calls[-3:]
    assert len(calls) >= 3, calls
    done = [c[0] for c in calls]
    assert done == sorted(done)
    assert any(c[2] is not None and c[2] > 0 for c in calls)
    assert len(ticks) > 20


class Stop(Exception):
    pass


@pytest.mark.parametrize("how", ["callback", "sigint"])
def test_an_interrupted_build_resumes(y14, tmp_path, how):
    board, want = y14
    path = tmp_path / "t.retro"
    partial = Path(str(path) + ".partial")
    calls = []

    def progress(done, total, layer):
        calls.append(layer)
        # Stop once a layer has been written (layers are written from the full board
        # down, so a layer below 150 means 169..150 are done or under way).
        if layer is not None and layer < 150:
            if how == "callback":
                raise Stop("enough")
            os.kill(os.getpid(), signal.SIGINT)

    expected = Stop if how == "callback" else KeyboardInterrupt
    with pytest.raises(expected) as e:
        retro.build("young", board, path, threads=1, progress=progress)
    assert not path.exists()
    assert partial.exists()
    if hasattr(e.value, "__notes__"):
        assert any("keeps the finished layers" in n for n in e.value.__notes__)
    report = retro.build("young", board, path, threads=1)
    assert report["resumed_below"] is not None and report["resumed_below"] < 169
    assert not partial.exists()
    assert path.read_bytes() == want.read_bytes()


def test_stop_after_layer_hook_resumes_byte_for_byte(y14, tmp_path):
    board, want = y14
    path = tmp_path / "t.retro"
    with pytest.raises(Exception):
        retro._retro.build("young", board.read_text(), str(path), stop_after_layer=100)
    report = retro.build("young", board, path)
    assert report["resumed_below"] == 100
    assert path.read_bytes() == want.read_bytes()


def test_solve_stops_on_ctrl_c(y14):
    board, _ = y14

    def progress(done, total, layer):
        if layer is not None:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        retro.solve("young", board, threads=1, progress=progress)


def test_an_unknown_game_is_quoted_once(cli, tmp_path):
    with pytest.raises(ValueError) as e:
        retro.build("chess", "8x8", tmp_path / "t.retro")
    message = str(e.value)
    assert message.count("chess") == 1, message
    assert "''" not in message and '""' not in message and "'\"" not in message, message
    # It names the games there are, as the command line does.
    assert all(g in message for g in retro.games()), message
