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
    def values(self, text: str, count: int) -> Tuple[bytearray, List[Tuple[int, str]]]:
        """Values of ``count`` positions, one per line of ``text``: little-endian int64
        bytes, and the bad positions as (index, message)."""
    def layer(self, k: int, text: bool, moves: bool) -> Dict[str, Any]:
        """Layer ``k``'s columns: ``value`` (int64 bytes), ``result`` (int8 codes) and
        ``remoteness`` (int64 bytes) where the game has them, ``position`` (list of str)
        with ``text``, ``to_move`` (int8 codes) and ``best_move`` (list) with ``moves``."""
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
) -> Dict[str, Any]:
    """Build a table from a board's text (``source`` names its file for messages)."""

def solve(
    game: str,
    board: str,
    *,
    source: Optional[str] = None,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int, Optional[int]], Any]] = None,
) -> int:
    """The empty board's value."""

def games() -> List[str]:
    """The games this retro has."""
