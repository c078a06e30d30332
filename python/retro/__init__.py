"""Exact retrograde tables of small two-player games, from Python.

``retro`` (the Rust program this package binds) builds a table holding the minimax value
of every position of a game on a board (young, twins, mnk, connect, teeko, quixo, morris) and
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
from dataclasses import dataclass, field
from functools import cached_property
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Tuple,
    Union,
)

import numpy as np

from . import _retro
from ._retro import TableError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars

__all__ = [
    "Layer",
    "Outcome",
    "Outcomes",
    "Table",
    "TableError",
    "build",
    "games",
    "open",
    "solve",
]

__version__ = "0.1.0"

#: What ``Layer.result`` holds, for the side to move, by the codes the extension returns
#: (4: a ``query_many`` line that is not a position, masked).
_RESULTS = np.array(["win", "loss", "tie", "draw", ""], dtype="U4")
#: Who moves, by the codes the extension returns ("none" where play has ended).
_SIDES = np.array(["first", "second", "none"], dtype="U6")


def _words(words: np.ndarray, codes: bytearray) -> np.ndarray:
    """``words[codes]`` for one-byte codes. Indexed as raw bytes (a void view) and viewed
    back as strings: five times faster than indexing the strings themselves, which took
    15 s of a 150-million-row layer."""
    raw = words.view(np.dtype((np.void, words.itemsize)))
    return raw[np.frombuffer(codes, dtype=np.uint8)].view(words.dtype)

#: A path as the ``open`` builtin takes it.
PathLike = Union[str, "os.PathLike[str]"]

#: ``progress(done, total, layer)``: positions done, positions in all, the layer being
#: computed (None before the first).
ProgressCallback = Callable[[int, int, Optional[int]], Any]


@dataclass(frozen=True)
class Layer:
    """One layer of a table (the positions with ``stones`` stones), or a slice of one, as
    NumPy arrays.

    Row ``i`` is the entry of rank ``start + i``: ``rank`` is ``start, start + 1, ...``
    and ``Table.position(stones, rank)`` gives its position's text. The columns are those
    of ``retro export`` (``value``; ``result`` and ``remoteness`` for games that end in a
    win, a loss, a tie or a draw; ``reachable``; ``x_in_hand`` and ``o_in_hand`` for a
    game with stones in hand; ``position``, and ``to_move``, ``best_move`` and the best
    move's integer columns such as ``best_row`` and ``best_col`` when asked for), in the
    same order and with the same contents, then ``rank`` and ``orbit_size``.

    The best move's integer columns are ``numpy.ma.MaskedArray`` objects (int64), masked
    where nobody moves, and read as attributes (``layer.best_row``); ``to_pandas`` makes
    them pandas nullable integers (``Int64``), ``to_arrow`` and ``to_polars`` columns with
    nulls.

    A table that folds symmetric positions (mnk, connect, Teeko, Quixo and Morris by default) stores
    one entry per orbit of the board's symmetries: a row is an orbit, its ``position`` the orbit's
    canonical position, and ``orbit_size`` how many positions share its entry (all of
    them have its value). Weigh by it to count positions: ``layer.orbit_size.sum()`` is
    the number of positions the layer answers for, and
    ``layer.orbit_size[layer.result == "win"].sum()`` the wins among them. In a table
    that does not fold, every row is one position and ``orbit_size`` is all ones.
    """

    #: The layer's number: the positions with this many stones in a placement game (a
    #: row's stones on the board are the ``stones`` column; Morris and Quixo number their
    #: layers otherwise, ``retro stats`` says what each holds).
    stones: int
    #: Each position's value as the table stores it (int64; what it means per game:
    #: ``retro help games``). For a game with outcomes it is a code (Teeko's 8 is a win in
    #: 7): ``result`` and ``remoteness`` say it.
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
    #: Whether play from the empty board reaches each position (bool; ``retro export``'s
    #: ``reachable``): the ranking also counts boards no game reaches, such as
    #: tic-tac-toe with a line for each side; leave those out of counts. In a table
    #: without a start of a game whose positions do not show their history (Quixo's
    #: ``min=``, Morris's moving phase) a ``numpy.ma.MaskedArray``, masked where that is
    #: not known.
    reachable: Optional[np.ndarray] = None
    #: Stones x and o hold in hand (int64), for a game whose positions have them (morris).
    x_in_hand: Optional[np.ndarray] = None
    o_in_hand: Optional[np.ndarray] = None
    #: The best move as integers, by ``retro export``'s column names (``best_row``,
    #: ``best_col``; ``best_column``; ``best_from_row``, ...), 1-based, masked where the
    #: move has no such part; empty unless moves were asked for.
    best_numbers: Dict[str, np.ma.MaskedArray] = field(default_factory=dict, repr=False)
    #: The rank of the first row: 0 for a whole layer.
    start: int = 0
    #: The orbit sizes read from a folded table; None where every row is one position.
    _orbits: Optional[np.ndarray] = field(default=None, repr=False)
    #: Each row's stones on the board, where the layer's number does not say them
    #: (morris numbers its layers by placements and each side's stones).
    _stones: Optional[np.ndarray] = field(default=None, repr=False)
    #: The name ``columns()`` gives ``value``, as ``retro export`` names it: ``value``
    #: where values are seen from the first player, ``value_to_move`` where they are for
    #: the side to move (Teeko, Quixo, Morris).
    _value_name: str = field(default="value", repr=False)

    def __getattr__(self, name: str) -> np.ma.MaskedArray:
        # The best move's integer columns, by name (``layer.best_row``).
        numbers = self.__dict__.get("best_numbers") or {}
        if name in numbers:
            return numbers[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @cached_property
    def rank(self) -> np.ndarray:
        """Each position's rank in its layer (uint64), made when first asked for."""
        return np.arange(self.start, self.start + len(self.value), dtype=np.uint64)

    @cached_property
    def orbit_size(self) -> np.ndarray:
        """How many positions share each row's entry (int64): the size of its orbit under
        the board's symmetries in a table that folds them, 1 in one that does not (made
        when first asked for)."""
        if self._orbits is not None:
            return self._orbits
        return np.ones(len(self.value), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.value)

    def columns(self) -> Dict[str, np.ndarray]:
        """The columns present, in ``retro export``'s order, then ``rank`` and
        ``orbit_size``."""
        n = len(self.value)
        cols: Dict[str, Any] = {}
        if self.position is not None:
            cols["position"] = self.position
        cols["stones"] = (
            self._stones if self._stones is not None else np.full(n, self.stones, dtype=np.int64)
        )
        if self.x_in_hand is not None and self.o_in_hand is not None:
            cols["x_in_hand"] = self.x_in_hand
            cols["o_in_hand"] = self.o_in_hand
        if self.to_move is not None:
            cols["to_move"] = self.to_move
        cols[self._value_name] = self.value
        if self.best_move is not None:
            cols["best_move"] = self.best_move
        if self.result is not None:
            cols["result"] = self.result
            cols["remoteness"] = self.remoteness
        if self.reachable is not None:
            cols["reachable"] = self.reachable
        cols.update(self.best_numbers)
        cols["rank"] = self.rank
        cols["orbit_size"] = self.orbit_size
        return cols


def _layer_from_raw(k: int, start: int, raw: Dict[str, Any], value_name: str = "value") -> Layer:
    fields: Dict[str, Any] = {
        "stones": k,
        "start": start,
        "value": np.frombuffer(raw["value"], dtype="<i8"),
        "_value_name": value_name,
    }
    if "result" in raw:
        fields["result"] = _words(_RESULTS, raw.pop("result"))
        fields["remoteness"] = np.frombuffer(raw["remoteness"], dtype="<i8")
    if "position" in raw:
        fields["position"] = _objects(raw["position"])
    if "to_move" in raw:
        fields["to_move"] = _words(_SIDES, raw.pop("to_move"))
        fields["best_move"] = _objects(raw["best_move"])
    if "orbit_size" in raw:
        fields["_orbits"] = np.frombuffer(raw["orbit_size"], dtype="<i8")
    if "reachable" in raw:
        reached = np.frombuffer(raw["reachable"], dtype=np.uint8)
        if raw.get("reachable_known", True):
            fields["reachable"] = reached.astype(np.bool_)
        else:
            # A table without a start of a game whose positions do not show their history
            # (Quixo's `min=`, Morris's moving phase): masked where not known, as export
            # leaves the field empty.
            fields["reachable"] = np.ma.MaskedArray(reached == 1, mask=reached == 2)
    if "stones" in raw:
        stones = np.frombuffer(raw["stones"], dtype="<u4")
        if (stones != k).any():
            fields["_stones"] = stones.astype(np.int64)
    if "in_hand" in raw:
        hands = np.frombuffer(raw["in_hand"], dtype="<u4").reshape(-1, 2).astype(np.int64)
        fields["x_in_hand"] = hands[:, 0].copy()
        fields["o_in_hand"] = hands[:, 1].copy()
    if "numbers" in raw:
        numbers = np.frombuffer(raw["numbers"], dtype="<u4").reshape(-1, 4)
        fields["best_numbers"] = {
            name: np.ma.MaskedArray(numbers[:, j].astype(np.int64), mask=numbers[:, j] == 0)
            for j, name in enumerate(raw["number_columns"])
        }
    return Layer(**fields)


class Outcome(NamedTuple):
    """How a game that ends in a win, a loss, a tie or a draw goes from a position with
    best play: what :func:`solve` returns for mnk, connect, teeko, quixo and morris."""

    #: "win", "loss", "tie" or "draw", for the side to move.
    result: str
    #: Plies to the end of the game with best play (0 for a draw, which never ends).
    remoteness: int


@dataclass(frozen=True)
class Outcomes:
    """What :meth:`Table.query_many` returns for a game that ends in a win, a loss, a tie
    or a draw (mnk, connect, teeko, quixo, morris): per position, in order, its result and
    remoteness, as ``Table.layer`` and ``retro export`` give them. With
    ``errors="mask"``, ``result`` and ``remoteness`` are ``numpy.ma.MaskedArray`` objects
    whose bad positions are masked."""

    #: "win", "loss", "tie" or "draw" for the side to move (a str array).
    result: np.ndarray
    #: Plies to the end of the game with best play (int64).
    remoteness: np.ndarray
    #: True where the line was not a position (with ``errors="mask"``; all False
    #: otherwise).
    mask: np.ndarray

    def __len__(self) -> int:
        return len(self.result)


def _best_text(best: Any) -> str:
    """A move of ``query``'s ``best`` list as export writes it: a cell ``[2, 3]`` as
    ``"2,3"``, a column as ``"3"``, a written move as it is."""
    if isinstance(best, list):
        return ",".join(str(x) for x in best)
    return str(best)


def _move_text(move: Dict[str, Any]) -> str:
    """A move of ``query``'s ``moves`` list as export writes it (see :func:`_best_text`)."""
    if "move" in move:
        return str(move["move"])
    if "column" in move:
        return str(move["column"])
    return _best_text(move["cell"])


def _objects(items: List[Any]) -> np.ndarray:
    """A 1-d object array of ``items`` (``np.array`` would guess a string dtype)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


#: Bytes per row of ``Table.layer`` while it is made, for the memory check: ``value``
#: (int64) and ``rank`` (uint64); ``result`` ("U4", 16 bytes, from one byte of code) and
#: ``remoteness`` (int64); with ``positions``, each position's str object (about 50 bytes
#: and its length), its pointer in a list and in the object array, and the Rust string it
#: is made from (24 bytes and its length); with ``moves``, ``to_move`` ("U6", from one
#: byte) and the best move's str, pointers and Rust string; in a table that folds
#: symmetric positions, ``orbit_size`` (int64); ``reachable`` (a byte) and the stones on
#: the board (4 bytes read); with stones in
#: hand, their counts (8 bytes read, two int64 columns); with ``moves``, the best move's
#: integers besides (16 bytes read, four int64 columns and their masks). Measured against
#: peak RSS: docs/python.md.
_ROW_BYTES = {
    "value": 16,
    "outcome": 25,
    "text": 100,
    "moves": 210,
    "orbit": 8,
    "reachable": 5,
    "hands": 24,
}


def _available_memory() -> Optional[int]:
    """MemAvailable in bytes, as the command line's memory checks read it (None where
    it cannot be read)."""
    return _retro.available_memory()


def _human_bytes(n: float) -> str:
    """ "6.4 GiB": a byte count as the command line writes one."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    v, u = float(n), 0
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return f"{n:.0f} B" if u == 0 else f"{v:.1f} {units[u]}"


class Table:
    """An open table file. Made by :func:`open`.

    The header is read when the table is opened; values are read as they are asked for,
    through a memory map, and each layer's checksum is checked on its first read (a
    damaged layer raises :class:`TableError`, never a wrong answer).

    The attributes ``game``, ``board``, ``encoding``, ``positions``, ``entries``,
    ``symmetries``, ``layer_sizes``, ``layer_positions``, ``root`` and ``root_value`` are
    those of ``retro info --json``.

    A table that folds symmetric positions (mnk, connect, Teeko, Quixo and Morris by default;
    ``symmetries`` greater than 1) stores one entry per orbit of the board's symmetries: it answers for
    ``positions`` positions with ``entries`` entries. Every position can be asked about
    (``query``, ``query_many``, ``rank``); a layer's rows are its entries, each with its
    orbit's canonical position and its ``orbit_size``.
    """

    def __init__(self, path: PathLike) -> None:
        #: The path the table was opened from.
        self.path: str = os.fspath(path)
        self._open: Optional[_retro.RawTable] = _retro.RawTable(self.path)
        self._header: Dict[str, Any] = self._open.info(False)

    @property
    def _raw(self) -> "_retro.RawTable":
        if self._open is None:
            raise ValueError(f"{self.path}: the table is closed")
        return self._open

    def close(self) -> None:
        """Let go of the file (its memory map) now rather than when the object is
        collected. The header's attributes still answer; anything that reads the table
        raises :class:`ValueError`. Closing twice is no error."""
        self._open = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._open is None

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

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
        """Positions the table answers for, over all layers (``len(table)``)."""
        return self._header["positions"]

    @property
    def entries(self) -> int:
        """Entries the table stores, over all layers: the rows of its layers. Equal to
        :attr:`positions` unless the table folds symmetric positions, one entry per
        orbit."""
        return self._header.get("entries", self.positions)

    @property
    def symmetries(self) -> int:
        """How many positions the board's symmetries fold onto one entry at most: 1 for a
        table that stores every position."""
        return self._header.get("symmetries", 1)

    @property
    def root(self) -> str:
        """The empty board's value in the game's words, as ``info`` prints it."""
        return self._header["root"]

    @property
    def root_value(self) -> int:
        """The empty board's value, for a game of scores (young, twins). A game that ends
        in a win, a loss, a tie or a draw has :attr:`root_result` and
        :attr:`root_remoteness` instead: asking it for a value raises
        :class:`AttributeError` (:attr:`root_code` is the code the table stores)."""
        if "root_result" in self._header:
            raise AttributeError(
                f"a {self.game} table's root is {self.root_result!r} with remoteness "
                f"{self.root_remoteness}, not a value: see root_result and root_remoteness "
                f"(root_code is the code the table stores)"
            )
        # `info --json` names it `root_code` for a game with outcomes, `root_value` else.
        header = self._header
        return header["root_code"] if "root_code" in header else header["root_value"]

    @property
    def root_result(self) -> Optional[str]:
        """The empty board's result for the side to move, "win", "loss", "tie" or "draw"
        (None for a game of scores)."""
        return self._header.get("root_result")

    @property
    def root_remoteness(self) -> Optional[int]:
        """Plies to the end of the game from the empty board with best play (None for a
        game of scores)."""
        return self._header.get("root_remoteness")

    @property
    def root_code(self) -> int:
        """The empty board's entry as the table stores it: the value for a game of
        scores, a code for the others (Teeko's and Quixo's r + 1 for a win in r, ...;
        ``retro help games``)."""
        # `info --json` names it `root_code` for a game with outcomes, `root_value` else.
        header = self._header
        return header["root_code"] if "root_code" in header else header["root_value"]

    @property
    def layer_sizes(self) -> List[int]:
        """Entries per layer, layer 0 (the empty board) first: the rows of
        :meth:`layer`. The positions per layer where the table folds symmetric positions
        are :attr:`layer_positions`."""
        return list(self._header["layer_sizes"])

    @property
    def layer_positions(self) -> List[int]:
        """Positions each layer answers for, layer 0 first: :attr:`layer_sizes` unless
        the table folds symmetric positions (then the sum of the layer's
        ``orbit_size``)."""
        return list(self._header.get("layer_positions", self._header["layer_sizes"]))

    def info(self, check: bool = True) -> Dict[str, Any]:
        """``retro info --json``'s object. With ``check`` (the default, as ``info``
        does), the value checksum is verified first, which reads the whole file, and
        ``checksum_ok`` is True (a damaged file raises :class:`TableError`); without it,
        ``checksum_ok`` is left out."""
        return self._raw.info(check)

    def stats(
        self, split: bool = False, reachable: bool = False, examples: bool = False
    ) -> Dict[str, Any]:
        """``retro stats --json``'s object: ``layers``, one dict per layer (``layer``,
        ``entries``, ``positions``, ``wins``, ``losses``, ``draws``, ``ties``,
        ``win_entries``, ``loss_entries``, ``draw_entries``, ``tie_entries``,
        ``longest_win``, ``longest_loss``, and for a game of scores ``min_value`` and
        ``max_value``; None where there is none; ``holds`` and ``phase`` where the game
        names them), ``total`` (the same sums over every layer, without ``layer``) and
        ``phases`` (one per phase of play, where the game names them).
        ``pandas.DataFrame(t.stats()["layers"])`` is a table of them. ``wins`` and the
        like count positions; ``win_entries`` and the like count entries (each orbit
        once in a folded table).

        With ``split`` (``retro stats --split``), ``split`` holds one dict per class of
        each layer: ``layer``, ``x`` and ``o`` (each side's stones or cubes),
        ``to_move`` (``"x"`` or ``"o"``), ``positions``, ``wins``, ``losses``,
        ``draws``, ``ties``, ``longest_win``, ``longest_loss``:
        ``pandas.DataFrame(t.stats(split=True)["split"])``.

        With ``reachable`` (``--reachable``), each layer, total, phase and class also has
        ``reachable``, the positions play from the start reaches, and ``reached``: those
        positions' ``positions``, ``wins``, ``losses``, ``draws``, ``ties``,
        ``longest_win``, ``longest_loss``, ``min_value`` and ``max_value``.

        With ``examples`` (``--examples``), each layer has ``examples``: a position with
        its longest win and one with its longest loss (``longest_win``,
        ``longest_loss``; for a game of scores ``max_value`` and ``min_value``), in the
        notation :meth:`query` takes, None where the layer has none (or only positions
        :meth:`query` refuses have it)."""
        return self._raw.stats(split, reachable, examples)

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

    def moves(self, position: str) -> List[Dict[str, Any]]:
        """Every move from ``position``, in ``retro query``'s order: one dict per move
        with ``move`` (written as ``retro export`` writes a best move: ``"2,3"``, connect
        ``"3"``, Teeko ``"1,1-2,2"``, morris ``"d2-d3xa1"``), ``position`` (where it
        leads), and its value for the side that plays it (``result`` and ``remoteness``,
        or ``value``), with the other fields of ``query``'s ``moves``. Empty where play
        has ended. Raises :class:`ValueError` for a position that is not one."""
        return [{"move": _move_text(m), **m} for m in self._raw.query(position, False)["moves"]]

    def best_move(self, position: str) -> Optional[str]:
        """The first best move from ``position`` (in ``retro query``'s order, as
        ``retro export``'s ``best_move`` column has it), written as :meth:`moves` writes
        moves; None where nobody moves. Raises :class:`ValueError` for a position that
        is not one."""
        best = self._raw.query(position, False).get("best") or []
        return _best_text(best[0]) if best else None

    def query_many(
        self, positions: Iterable[str], *, errors: str = "raise", codes: bool = False
    ) -> Union[np.ndarray, Outcomes]:
        """The answers for many positions at once, as ``retro query TABLE --batch``
        answers them, in order.

        For a game of scores (young, twins): an int64 array of values. For a game that
        ends in a win, a loss, a tie or a draw (mnk, connect, teeko, quixo, morris): an
        :class:`Outcomes` of ``result`` and ``remoteness`` arrays. ``codes=True`` gives
        the entries as the table stores them (and ``retro query --batch`` prints them),
        an int64 array for every game: for the games with outcomes these are codes
        (Teeko's 8 is a win in 7; ``retro help games``).

        The positions are read in Rust, in parallel, without the GIL. With
        ``errors="raise"`` (the default) the first bad position raises
        :class:`ValueError` naming its index, and the positions after it are not read;
        with ``errors="mask"`` the bad ones are masked (a ``numpy.ma.MaskedArray``, or
        ``Outcomes.mask``).
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
        masking = errors == "mask"
        raw = self._raw.values(text, len(items), not codes, masking)
        if raw["bad"] and not masking:
            i, message = raw["messages"][0]
            raise ValueError(f"positions[{i}]: {message}")
        mask = (
            np.frombuffer(raw["mask"], dtype=np.bool_)
            if masking
            else np.zeros(len(items), dtype=np.bool_)
        )
        if "value" in raw:
            values = np.frombuffer(raw["value"], dtype="<i8")
            return np.ma.MaskedArray(values, mask=mask) if masking else values
        result = _words(_RESULTS, raw.pop("result"))
        remoteness = np.frombuffer(raw["remoteness"], dtype="<i8")
        if masking:
            result = np.ma.MaskedArray(result, mask=mask)
            remoteness = np.ma.MaskedArray(remoteness, mask=mask)
        return Outcomes(result=result, remoteness=remoteness, mask=mask)

    def layer(
        self,
        k: int,
        start: Optional[int] = None,
        stop: Optional[int] = None,
        *,
        positions: bool = False,
        moves: bool = False,
    ) -> Layer:
        """Layer ``k`` (the positions with ``k`` stones) as NumPy arrays, read in Rust
        without going through text: ranks, values, orbit sizes, and for a game that ends
        in a win, a loss, a tie or a draw, results and remoteness. ``positions=True`` adds
        each position's text; ``moves=True`` adds who moves and the first best move (as
        ``retro export`` writes them; this reads every move's child). A row is an entry:
        in a table that folds symmetric positions, an orbit (see :class:`Layer`).

        ``start`` and ``stop`` read the ranks ``start..stop`` only, as a slice does
        (``layer(k, 0, 1_000_000)``); :meth:`layer_chunks` walks a layer that way. A
        layer (or slice) whose arrays would not fit in the memory available raises
        :class:`MemoryError` before anything is read, saying how much it needs."""
        size = self._layer_size(k)
        start, stop, _ = slice(start, stop).indices(size)
        stop = max(start, stop)
        rows = stop - start
        need = rows * self._row_bytes(k, positions, moves)
        available = _available_memory()
        if available is not None and need > available:
            rows_are = "entries" if self.symmetries > 1 else "positions"
            raise MemoryError(
                f"{self.path}: layer {k} rows {start}..{stop} ({rows:,} {rows_are}) need about "
                f"{_human_bytes(need)} of memory as arrays, {_human_bytes(available)} is "
                f"available: read it in slices (layer({k}, start, stop), or "
                f"layer_chunks({k}))"
            )
        # The values' column is named as `retro export` names it (`info --json`'s
        # `value_column`).
        value_name = self._header.get("value_column", "value")
        return _layer_from_raw(
            k, start, self._raw.layer(k, positions, moves, start, stop), value_name
        )

    def layer_chunks(
        self, k: int, size: int = 1 << 20, *, positions: bool = False, moves: bool = False
    ) -> Iterator[Layer]:
        """Layer ``k`` in slices of ``size`` rows (the last may be shorter), in rank
        order: :meth:`layer` a slice at a time, for a layer too large to hold at once.
        Each slice's ``rank`` says where it is, and its ``orbit_size`` how many positions
        each row stands for."""
        if size < 1:
            raise ValueError(f"size={size}: a slice holds at least one position")
        total = self._layer_size(k)
        for start in range(0, total, size):
            yield self.layer(k, start, min(start + size, total), positions=positions, moves=moves)

    def _layer_size(self, k: int) -> int:
        sizes = self.layer_sizes
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError(f"a layer is an int, not a {type(k).__name__}")
        if not 0 <= k < len(sizes):
            raise ValueError(f"layer {k} is out of range: the table has layers 0..={len(sizes) - 1}")
        return sizes[k]

    def _row_bytes(self, k: int, positions: bool, moves: bool) -> int:
        """About how many bytes a row of ``layer(k)`` takes while it is made: the arrays
        the caller gets and what is held on the way (see ``_ROW_BYTES``)."""
        outcomes = "root_result" in self._header
        row = _ROW_BYTES["value"] + _ROW_BYTES["reachable"] + _ROW_BYTES["hands"]
        row += _ROW_BYTES["outcome"] if outcomes else 0
        if self.symmetries > 1:
            row += _ROW_BYTES["orbit"]
        if positions:
            row += _ROW_BYTES["text"] + 2 * len(self.position(k, 0))
        if moves:
            row += _ROW_BYTES["moves"]
        return row

    def position(self, stones: int, rank: int) -> str:
        """The position of rank ``rank`` in layer ``stones``, in the game's notation
        (:class:`IndexError` past the layer's end); in a table that folds symmetric
        positions, the canonical position of the orbit of that rank."""
        return self._raw.position(stones, rank)

    def rank(self, position: str) -> Tuple[int, int]:
        """A position's layer and rank: ``(stones, rank)``, the row of ``layer(stones)``
        that holds it (in a table that folds symmetric positions, its orbit's row, which
        every position of the orbit shares)."""
        return self._raw.locate(position)

    def _columns(self, layer: Optional[int], positions: bool, moves: bool) -> Dict[str, np.ndarray]:
        ks = range(len(self.layer_sizes)) if layer is None else [layer]
        parts = [self.layer(k, positions=positions, moves=moves).columns() for k in ks]

        def joined(name: str) -> np.ndarray:
            cols = [p[name] for p in parts]
            if isinstance(cols[0], np.ma.MaskedArray):
                return np.ma.concatenate(cols)
            return np.concatenate(cols)

        return {name: joined(name) for name in parts[0]}

    def to_pandas(
        self, layer: Optional[int] = None, *, positions: bool = True, moves: bool = True
    ) -> "pandas.DataFrame":
        """The table's rows (or one layer's) as a pandas DataFrame: the columns of
        ``retro export`` (``position``, ``stones``, ``to_move``, ``value``,
        ``best_move``, and ``result``, ``remoteness`` where the game has them) in layer
        and rank order, then ``rank`` and ``orbit_size`` (how many positions share the
        row's entry: weigh counts by it in a table that folds symmetric positions).
        ``positions=False`` / ``moves=False`` leave out the text columns, which cost far
        more than the values. The best move's integer columns (``best_row``, ...) are
        pandas nullable integers (``Int64``), missing where nobody moves. Needs pandas."""
        import pandas as pd

        cols = self._columns(layer, positions, moves)
        return pd.DataFrame(
            {
                name: (
                    (
                        pd.arrays.BooleanArray(col.data, np.ma.getmaskarray(col))
                        if col.dtype == np.bool_
                        else pd.arrays.IntegerArray(col.data, np.ma.getmaskarray(col))
                    )
                    if isinstance(col, np.ma.MaskedArray)
                    else col
                )
                for name, col in cols.items()
            }
        )

    def to_polars(
        self, layer: Optional[int] = None, *, positions: bool = True, moves: bool = True
    ) -> "polars.DataFrame":
        """:meth:`to_pandas`, as a polars DataFrame (the best move's integer columns
        with nulls where nobody moves). Needs polars."""
        import polars as pl

        def series(name: str, col: np.ndarray) -> "pl.Series":
            if isinstance(col, np.ma.MaskedArray):
                s = pl.Series(name, col.data)
                return s.set(pl.Series(np.ma.getmaskarray(col)), None)
            return pl.Series(name, col.tolist() if col.dtype == object else col)

        cols = self._columns(layer, positions, moves)
        return pl.DataFrame([series(k, v) for k, v in cols.items()])

    def to_arrow(
        self, layer: Optional[int] = None, *, positions: bool = True, moves: bool = True
    ) -> "pyarrow.Table":
        """:meth:`to_pandas`, as a pyarrow Table: the numeric columns are handed over
        without a copy, the best move's integer columns with nulls where nobody moves,
        the text columns as strings. Needs pyarrow."""
        import pyarrow as pa

        def array(col: np.ndarray) -> "pyarrow.Array":
            if isinstance(col, np.ma.MaskedArray):
                return pa.array(col.data, mask=np.ma.getmaskarray(col))
            if col.dtype == object or col.dtype.kind == "U":
                return pa.array(col, type=pa.string())
            return pa.array(col)

        cols = self._columns(layer, positions, moves)
        return pa.table({name: array(col) for name, col in cols.items()})

    def __len__(self) -> int:
        return self.positions

    def __repr__(self) -> str:
        entries = f" in {self.entries} entries" if self.entries != self.positions else ""
        return (
            f"<retro.Table {self.path!r}: {self.game} {self.board}, "
            f"{self.positions} positions{entries}, {self.encoding}, root {self.root}>"
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
    fold: bool = True,
) -> Dict[str, Any]:
    """Build the complete table of ``board`` into ``path``, as ``retro build`` does, and
    return the object ``retro build --json`` prints (``positions``, ``seconds``,
    ``root_value``, ``resumed_below``, ...). For a game that ends in a win, a loss, a tie
    or a draw (mnk, connect, teeko, quixo, morris), the root is said by ``root_result`` and
    ``root_remoteness`` in place of ``root_value``, and ``root_code`` is the code the table
    stores for it.

    ``board`` is a board file (the contest input format) or the board's text; for mnk and
    connect a size such as ``"3x3k3"`` or ``"5x4k4"`` (``retro help games``). ``rows`` and
    ``cols`` say a twins board's size where its text cannot. ``encoding`` is ``"plain"``,
    ``"compact"`` or ``"moves"`` (with ``values_every=L``, as ``--moves L``).
    ``threads`` workers (default: all cores).

    A game whose board has symmetries (mnk, connect, Teeko, Quixo, Morris) folds them by default: the table
    stores one entry per orbit of symmetric positions and answers for all of them
    (the report's ``entries`` and ``positions``). ``fold=False`` stores every position,
    as ``--no-fold`` does; a table of best moves always does.

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
            fold=fold,
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
    codes: bool = False,
    fold: bool = True,
) -> Union[int, Outcome]:
    """The empty board's value, as ``retro solve`` computes it (two layers in memory,
    nothing written). ``board``, ``threads``, ``progress``, ``fold`` and Ctrl-C as in
    :func:`build`: folding changes the work, not the value.

    For a game of scores this is the table's root value (``build``'s ``root_value``):
    for twins the first player's final score, which ``retro solve`` prints with the
    second's, as the contest asks. For a game that ends in a win, a loss, a tie or a draw
    it is an :class:`Outcome`, ``(result, remoteness)`` for the first player, who moves
    first. ``codes=True`` gives the value as the table stores it for every game (for
    those with outcomes a code: ``build``'s ``root_code``)."""
    text, source = _board_text(board)
    code, outcome = _retro.solve(
        game,
        text,
        source=source,
        rows=rows,
        cols=cols,
        threads=threads,
        progress=progress,
        fold=fold,
    )
    if outcome is None or codes:
        return code
    return Outcome(*outcome)


def games() -> List[str]:
    """The games this retro has: ``["young", "twins", "mnk", "connect", "teeko", "quixo"]``."""
    return _retro.games()
