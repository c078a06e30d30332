"""Type hints of ``retro._retro``, the Rust extension behind :mod:`retro`. Call the
functions of :mod:`retro` itself; these are its building blocks."""

from typing import Any, Callable, Dict, List, Optional, Tuple

class TableError(Exception):
    """A table file that is damaged, truncated, foreign or of another version."""

class RawTable:
    """An open table file and its game (``retro.Table`` wraps it)."""

    def __init__(self, path: str) -> None: ...
    def info(self, check: bool) -> Dict[str, Any]:
        """``retro info --json``'s object; ``check`` verifies the checksum first."""
    def query(self, position: str, pv: bool) -> Dict[str, Any]:
        """``retro query --json``'s object (``--pv`` with ``pv``)."""
    def pv(self, position: str) -> List[Dict[str, Any]]:
        """The ``pv`` array of ``retro query --pv --json``."""
    def values(self, text: str, count: int, outcomes: bool, mask: bool) -> Dict[str, Any]:
        """``count`` positions, one per line of ``text``, answered: ``value`` (int64
        bytes), or with ``outcomes`` for a game that has them ``result`` (uint8 codes, 4
        for a bad line) and ``remoteness`` (int64 bytes); ``mask`` (a byte per line, 1
        where bad) with ``mask``; ``bad`` (how many lines are bad) and ``messages`` (the
        first few as (index, message)). Without ``mask`` the batch stops at its first bad
        line."""
    def layer(
        self, k: int, text: bool, moves: bool, start: int = 0, stop: Optional[int] = None
    ) -> Dict[str, Any]:
        """Rows ``start..stop`` of layer ``k``: ``value`` (int64 bytes), ``result`` (uint8
        codes) and ``remoteness`` (int64 bytes) where the game has them, ``orbit_size``
        (int64 bytes) where the table folds symmetric positions, ``reachable`` (a byte
        each, 1 where play reaches the position), ``in_hand`` (x's and o's stones in hand,
        two uint32s each) for a game with hands, ``position`` (list of str) with ``text``,
        ``to_move`` (uint8 codes), ``best_move`` (list), ``numbers`` (four uint32s each:
        the best move's integers, 0 where it has no such part) and ``number_columns`` (the
        names of the integers used) with ``moves``."""
    def position(self, k: int, rank: int) -> str:
        """The position of rank ``rank`` in layer ``k``."""
    def locate(self, position: str) -> Tuple[int, int]:
        """A position's (layer, rank)."""
    def has_outcomes(self) -> bool:
        """Whether the game's values are wins, losses, ties or draws."""

def build(
    game: str,
    board: str,
    path: str,
    *,
    source: Optional[str] = None,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    threads: Optional[int] = None,
    encoding: str = "plain",
    values_every: Optional[int] = None,
    fresh: bool = False,
    force: bool = False,
    progress: Optional[Callable[[int, int, Optional[int]], Any]] = None,
    stop_after_layer: Optional[int] = None,
    fold: bool = True,
) -> Dict[str, Any]:
    """Build a table from a board's text (``source`` names its file for messages);
    ``fold=False`` stores every position (``--no-fold``)."""

def solve(
    game: str,
    board: str,
    *,
    source: Optional[str] = None,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int, Optional[int]], Any]] = None,
    fold: bool = True,
) -> Tuple[int, Optional[Tuple[str, int]]]:
    """The empty board's stored value, and its (result, remoteness) for a game that has
    outcomes."""

def games() -> List[str]:
    """The games this retro has."""

def available_memory() -> Optional[int]:
    """MemAvailable in bytes, None where it cannot be read."""
