"""Exact retrograde tables of small two-player games, from Python.

``retro`` (the Rust program this package binds) builds a table holding the minimax value
of every position of a game on a board (young, twins, mnk, connect, teeko, quixo) and
reads it back one entry at a time. This package opens such tables and asks them
questions, in the spirit of python-chess's ``chess.syzygy``: the table stays on disk and
probing is a method call.

>>> import retro
>>> t = retro.open("tables/young-sample.retro")
>>> t.query("1,0")["value"]
0
>>> t.layer(3).value
array([-2, -2])

Answers are the command line's own: ``Table.query`` returns the object
``retro query --json`` prints, ``Table.info`` the one ``retro info --json`` prints, and
``Table.layer`` / ``Table.to_pandas`` the rows ``retro export`` writes.

Errors: a damaged, truncated or foreign table raises :class:`TableError`; a bad position,
board or option raises :class:`ValueError`; a missing file :class:`FileNotFoundError`
(an :class:`OSError`). The message is the command line's one-line message.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

from . import _retro
from ._retro import TableError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars

__all__ = [
    "Layer",
    "Table",
    "TableError",
    "build",
    "games",
    "open",
    "solve",
]

__version__ = "0.1.0"

#: What ``Layer.result`` holds, for the side to move, by the codes the extension returns.
_RESULTS = np.array(["win", "loss", "tie", "draw"])
#: Who moves, by the codes the extension returns ("none" where play has ended).
_SIDES = np.array(["first", "second", "none"])

#: A path as the ``open`` builtin takes it.
PathLike = Union[str, "os.PathLike[str]"]

#: ``progress(done, total, layer)``: positions done, positions in all, the layer being
#: computed (None before the first).
ProgressCallback = Callable[[int, int, Optional[int]], Any]


@dataclass(frozen=True)
class Layer:
    """One layer of a table (the positions with ``stones`` stones), as NumPy arrays.

    Row ``i`` is the position of rank ``i``: ``rank`` is ``0, 1, ..., len - 1`` and
    ``Table.position(stones, rank)`` gives its text. The columns are those of
    ``retro export`` (``value``; ``result`` and ``remoteness`` for games that end in a
    win, a loss, a tie or a draw; ``position``, ``to_move`` and ``best_move`` when asked
    for), in the same order and with the same contents.
    """

    #: Stones on the board: the layer's number.
    stones: int
    #: Each position's rank in its layer (uint64).
    rank: np.ndarray
    #: Each position's value (int64; what it means per game: ``retro help games``).
    value: np.ndarray
    #: "win", "loss", "tie" or "draw" for the side to move; None for a game of scores.
    result: Optional[np.ndarray] = None
    #: Plies to the end of the game with best play (int64); None for a game of scores.
    remoteness: Optional[np.ndarray] = None
    #: Each position in the game's notation (object array of str), if asked for.
    position: Optional[np.ndarray] = None
    #: "first", "second", or "none" where play has ended, if moves were asked for.
    to_move: Optional[np.ndarray] = None
    #: The first best move as export writes it (``"2,3"``; connect ``"3"``), None where
    #: nobody moves, if moves were asked for (object array).
    best_move: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return len(self.value)

    def columns(self) -> Dict[str, np.ndarray]:
        """The columns present, in ``retro export``'s order, then ``rank``."""
        n = len(self.value)
        cols: Dict[str, Any] = {}
        if self.position is not None:
            cols["position"] = self.position
        cols["stones"] = np.full(n, self.stones, dtype=np.int64)
        if self.to_move is not None:
            cols["to_move"] = self.to_move
        cols["value"] = self.value
        if self.best_move is not None:
            cols["best_move"] = self.best_move
        if self.result is not None:
            cols["result"] = self.result
            cols["remoteness"] = self.remoteness
        cols["rank"] = self.rank
        return cols


def _layer_from_raw(k: int, raw: Dict[str, Any]) -> Layer:
    value = np.frombuffer(raw["value"], dtype="<i8")
    fields: Dict[str, Any] = {
        "stones": k,
        "rank": np.arange(len(value), dtype=np.uint64),
        "value": value,
    }
    if "result" in raw:
        fields["result"] = _RESULTS[np.frombuffer(raw["result"], dtype=np.int8)]
        fields["remoteness"] = np.frombuffer(raw["remoteness"], dtype="<i8")
    if "position" in raw:
        fields["position"] = _objects(raw["position"])
    if "to_move" in raw:
        fields["to_move"] = _SIDES[np.frombuffer(raw["to_move"], dtype=np.int8)]
        fields["best_move"] = _objects(raw["best_move"])
    return Layer(**fields)


def _objects(items: List[Any]) -> np.ndarray:
    """A 1-d object array of ``items`` (``np.array`` would guess a string dtype)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class Table:
    """An open table file. Made by :func:`open`.

    The header is read when the table is opened; values are read as they are asked for,
    through a memory map, and each layer's checksum is checked on its first read (a
    damaged layer raises :class:`TableError`, never a wrong answer).

    The attributes ``game``, ``board``, ``encoding``, ``positions``, ``root`` and
    ``root_value`` are those of ``retro info --json``.
    """

    def __init__(self, path: PathLike) -> None:
        #: The path the table was opened from.
        self.path: str = os.fspath(path)
        self._raw = _retro.RawTable(self.path)
        self._header: Dict[str, Any] = self._raw.info(False)

    # What `info --json` says, without reading the whole file.
    @property
    def game(self) -> str:
        """The game's name: ``"young"``, ``"twins"``, ``"mnk"``, ``"connect"``, ..."""
        return self._header["game"]

    @property
    def board(self) -> str:
        """The board as ``info --json`` names it: ``"2x3"``, mnk ``"3x3k3"``, connect ``"5x4k4"``."""
        return self._header["board"]

    @property
    def encoding(self) -> str:
        """``"plain"``, ``"compact"`` or ``"moves"`` (a table of best moves)."""
        return self._header["encoding"]

    @property
    def positions(self) -> int:
        """Positions in the table, over all layers."""
        return self._header["positions"]

    @property
    def root(self) -> str:
        """The empty board's value in the game's words, as ``info`` prints it."""
        return self._header["root"]

    @property
    def root_value(self) -> int:
        """The empty board's value."""
        return self._header["root_value"]

    @property
    def layer_sizes(self) -> List[int]:
        """Positions per layer, layer 0 (the empty board) first."""
        return list(self._header["layer_sizes"])

    def info(self, check: bool = True) -> Dict[str, Any]:
        """``retro info --json``'s object. With ``check`` (the default, as ``info``
        does), the value checksum is verified first, which reads the whole file, and
        ``checksum_ok`` is True (a damaged file raises :class:`TableError`); without it,
        ``checksum_ok`` is left out."""
        return self._raw.info(check)

    def query(self, position: str, *, pv: bool = False) -> Dict[str, Any]:
        """A position's answer: the object ``retro query TABLE POSITION --json`` prints
        (``game``, ``position``, ``stones``, ``to_move``, ``value``, ``moves``, ``best``,
        and the game's own fields), with ``pv`` (``--pv``) when asked for.

        Raises :class:`ValueError` for a position that is not one of this table's game
        (the message says what the game's positions look like)."""
        return self._raw.query(position, pv)

    def pv(self, position: str) -> List[Dict[str, Any]]:
        """The principal variation from ``position`` to the end of the game: the ``pv``
        array of ``retro query --pv --json`` (one dict per move: ``player``, ``cell``,
        ``position``, ``first_score``, ``second_score``, ...)."""
        return self._raw.pv(position)

    def query_many(self, positions: Iterable[str], *, errors: str = "raise") -> np.ndarray:
        """The values of many positions at once, as ``retro query TABLE --batch`` prints
        them: an int64 array, one value per position, in order.

        The positions are read in Rust, in parallel, without the GIL. With
        ``errors="raise"`` (the default) a bad position raises :class:`ValueError`
        naming its index; with ``errors="mask"`` the result is a
        ``numpy.ma.MaskedArray`` whose bad entries are masked.
        """
        if errors not in ("raise", "mask"):
            raise ValueError(f'errors={errors!r}: expected "raise" or "mask"')
        if isinstance(positions, (str, bytes)):
            raise TypeError("query_many takes an iterable of positions, not one position")
        items = positions if isinstance(positions, (list, tuple)) else list(positions)
        try:
            text = "\n".join(items)
        except TypeError:
            i = next(i for i, p in enumerate(items) if not isinstance(p, str))
            raise TypeError(
                f"positions[{i}] is a {type(items[i]).__name__}, not a str"
            ) from None
        raw, bad = self._raw.values(text, len(items))
        values = np.frombuffer(raw, dtype="<i8")
        if bad and errors == "raise":
            i, message = bad[0]
            more = f" (and {len(bad) - 1} more bad positions)" if len(bad) > 1 else ""
            raise ValueError(f"positions[{i}]: {message}{more}")
        if errors == "mask":
            mask = np.zeros(len(values), dtype=bool)
            mask[[i for i, _ in bad]] = True
            return np.ma.MaskedArray(values, mask=mask)
        return values

    def layer(self, k: int, *, positions: bool = False, moves: bool = False) -> Layer:
        """Layer ``k`` (the positions with ``k`` stones) as NumPy arrays, read in Rust
        without going through text: ranks, values, and for a game that ends in a win, a
        loss, a tie or a draw, results and remoteness. ``positions=True`` adds each
        position's text; ``moves=True`` adds who moves and the first best move (as
        ``retro export`` writes them; this reads every move's child)."""
        return _layer_from_raw(k, self._raw.layer(k, positions, moves))

    def position(self, stones: int, rank: int) -> str:
        """The position of rank ``rank`` in layer ``stones``, in the game's notation
        (:class:`IndexError` past the layer's end)."""
        return self._raw.position(stones, rank)

    def rank(self, position: str) -> Tuple[int, int]:
        """A position's layer and rank: ``(stones, rank)``, the row of ``layer(stones)``
        that holds it."""
        return self._raw.locate(position)

    def _columns(self, layer: Optional[int], positions: bool, moves: bool) -> Dict[str, np.ndarray]:
        ks = range(len(self.layer_sizes)) if layer is None else [layer]
        parts = [self.layer(k, positions=positions, moves=moves).columns() for k in ks]
        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}

    def to_pandas(
        self, layer: Optional[int] = None, *, positions: bool = True, moves: bool = True
    ) -> "pandas.DataFrame":
        """The table's rows (or one layer's) as a pandas DataFrame: the columns of
        ``retro export`` (``position``, ``stones``, ``to_move``, ``value``,
        ``best_move``, and ``result``, ``remoteness`` where the game has them) in layer
        and rank order, then ``rank``. ``positions=False`` / ``moves=False`` leave out
        the text columns, which cost far more than the values. Needs pandas."""
        import pandas as pd

        return pd.DataFrame(self._columns(layer, positions, moves))

    def to_polars(
        self, layer: Optional[int] = None, *, positions: bool = True, moves: bool = True
    ) -> "polars.DataFrame":
        """:meth:`to_pandas`, as a polars DataFrame. Needs polars."""
        import polars as pl

        cols = self._columns(layer, positions, moves)
        return pl.DataFrame(
            {k: (v.tolist() if v.dtype == object else v) for k, v in cols.items()}
        )

    def __len__(self) -> int:
        return self.positions

    def __repr__(self) -> str:
        return (
            f"<retro.Table {self.path!r}: {self.game} {self.board}, "
            f"{self.positions} positions, {self.encoding}, root {self.root}>"
        )


def open(path: PathLike) -> Table:  # noqa: A001 - the module's verb, as chess.syzygy.open_tablebase
    """Open a table file written by ``retro build`` (or :func:`build`).

    Reads and checks the header; a file that is not a whole table of one of retro's
    games raises :class:`TableError`, a missing one :class:`FileNotFoundError`."""
    return Table(path)


#: A board file larger than this is refused (as the command line does).
_MAX_BOARD_BYTES = 256 << 20


def _board_text(board: Union[str, "os.PathLike[str]"]) -> Tuple[str, Optional[str]]:
    """The board's text and where it came from: a path to a board file (the contest input
    format), or the board itself (its text, or for mnk and connect a size such as
    ``"3x3k3"``) as ``retro build GAME FILE`` reads them."""
    if isinstance(board, str) and ("\n" in board or not os.path.isfile(board)):
        return board, None
    path = os.fspath(board)
    if os.path.getsize(path) > _MAX_BOARD_BYTES:
        raise ValueError(f"{path}: not a board: more than 256 MiB of input")
    # `open` in this module is retro's own.
    with builtins.open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8"), path
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a board: byte {e.start + 1} is not UTF-8 text") from None


def _note_partial(e: BaseException, path: PathLike, again: str) -> None:
    """Say on an exception that stopped a build how to go on, as the command line does
    on Ctrl-C (Python 3.11 and later show notes)."""
    partial = os.fspath(path) + ".partial"
    if os.path.exists(partial) and hasattr(e, "add_note"):
        e.add_note(f"interrupted: {partial} keeps the finished layers; {again} to resume")


def build(
    game: str,
    board: Union[str, "os.PathLike[str]"],
    path: PathLike,
    threads: Optional[int] = None,
    encoding: str = "plain",
    *,
    values_every: Optional[int] = None,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    fresh: bool = False,
    force: bool = False,
    progress: Optional[ProgressCallback] = None,
) -> Dict[str, Any]:
    """Build the complete table of ``board`` into ``path``, as ``retro build`` does, and
    return the object ``retro build --json`` prints (``positions``, ``seconds``,
    ``root_value``, ``resumed_below``, ...).

    ``board`` is a board file (the contest input format) or the board's text; for mnk and
    connect a size such as ``"3x3k3"`` or ``"5x4k4"`` (``retro help games``). ``rows`` and
    ``cols`` say a twins board's size where its text cannot. ``encoding`` is ``"plain"``,
    ``"compact"`` or ``"moves"`` (with ``values_every=L``, as ``--moves L``).
    ``threads`` workers (default: all cores).

    The build runs without the GIL. ``progress(done, total, layer)`` is called from the
    calling thread about ten times a second. Ctrl-C (``KeyboardInterrupt``), or an
    exception raised by ``progress``, stops the build: every finished layer stays in
    ``path + ".partial"``, the exception is raised, and the same call resumes below the
    last finished layer (``fresh=True`` starts over). The table appears under ``path``
    only when whole.
    """
    text, source = _board_text(board)
    try:
        return _retro.build(
            game,
            text,
            os.fspath(path),
            source=source,
            rows=rows,
            cols=cols,
            threads=threads,
            encoding=encoding,
            values_every=values_every,
            fresh=fresh,
            force=force,
            progress=progress,
        )
    except BaseException as e:
        _note_partial(e, path, "call retro.build again")
        raise


def solve(
    game: str,
    board: Union[str, "os.PathLike[str]"],
    threads: Optional[int] = None,
    *,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    progress: Optional[ProgressCallback] = None,
) -> int:
    """The value of the empty board, as ``retro solve`` computes it (two layers in
    memory, nothing written). ``board``, ``threads``, ``progress`` and Ctrl-C as in
    :func:`build`. This is the table's root value (``build``'s ``root_value``): for twins
    the first player's final score, which ``retro solve`` prints with the second's, as the
    contest asks."""
    text, source = _board_text(board)
    return _retro.solve(
        game, text, source=source, rows=rows, cols=cols, threads=threads, progress=progress
    )


def games() -> List[str]:
    """The games this retro has: ``["young", "twins", "mnk", "connect", "teeko", "quixo"]``."""
    return _retro.games()
