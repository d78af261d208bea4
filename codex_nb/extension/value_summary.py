"""Bounded summaries of the values people keep in notebooks, for ``%%codex --vars`` and ``--outputs``.

A value attached to a prompt may be a 500 MB DataFrame, a Series, a wide or MultiIndex frame, a
million-element array, a polars frame, an int of 100,000 digits, or an object whose ``repr``
raises. Each is read only as far as its summary shows: a table by its first ``TABLE_ROWS`` rows
and ``TABLE_COLS`` columns (cells cut at ``CELL_WIDTH`` characters), an array through
``numpy.array2string`` with its own threshold (whatever the notebook's print options), anything
else by ``reprlib``. pandas, numpy and polars are never imported here: a value is one of theirs
only when its library is already loaded. ``summarize`` never raises: a summary that fails says so
in its text and in a note, so the prompt goes on without that value's contents.
"""

from __future__ import annotations

import reprlib
import sys
from dataclasses import dataclass
from typing import Any

TABLE_ROWS = 20
TABLE_COLS = 20
CELL_WIDTH = 60
ARRAY_ITEMS = 200
"""An array with more elements than this shows its first and last ``EDGE_ITEMS`` per axis."""
EDGE_ITEMS = 3
MAX_ARRAY_DIMS = 4
"""A higher-dimensional array shows its first values flat (its summary would grow as 6**ndim)."""
REPR_CHARS = 8_000
"""What reprlib keeps of a string or an object's repr (the prompt's own cut then says so)."""
MAX_INT_BITS = 10_000
"""An int longer than this (about 3,000 digits) is shown by its size: its decimal text is slow to
make and past 4,300 digits Python refuses it."""


@dataclass(frozen=True)
class Summary:
    """What the agent reads of one value."""

    kind: str
    """The label after the name: ``DataFrame (1000000, 3)``, ``Series (100,) int64``."""
    text: str
    note: str | None = None
    """What the person should know (the summary failed, the repr raised), else None."""


def summarize(value: Any) -> Summary:
    """A bounded summary of ``value``; never raises."""
    try:
        for reader in (_pandas, _polars, _numpy, _table_like):
            found = reader(value)
            if found is not None:
                return found
        return _plain(value)
    except Exception as err:  # noqa: BLE001  (a value's own code may raise anything; the prompt goes on)
        kind = type(value).__name__
        why = f"{type(err).__name__}: {safe_str(err)}"
        return Summary(kind, f"<{kind} object: its summary failed ({why})>", f"its summary failed ({why})")


def safe_str(value: Any, limit: int = 200) -> str:
    """``str(value)`` cut to ``limit`` characters, or a placeholder when ``str`` itself raises."""
    try:
        text = str(value)
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__} whose str raised>"
    return text if len(text) <= limit else text[:limit] + "…"


# -- pandas ----------------------------------------------------------------------------
def _pandas(value: Any) -> Summary | None:
    pd = sys.modules.get("pandas")
    if pd is None:
        return None
    if isinstance(value, pd.DataFrame):
        rows, cols = value.shape
        return Summary(f"DataFrame {value.shape}", _frame_text(value, "DataFrame", rows, cols))
    if isinstance(value, pd.Series):
        frame = value.head(TABLE_ROWS).to_frame(name=value.name if value.name is not None else "value")
        shown = min(len(value), TABLE_ROWS)
        head = f"Series {safe_str(value.name)!r} of length {len(value):,}, dtype {value.dtype}; first {shown} values:"
        table = frame.to_string(max_colwidth=CELL_WIDTH)
        return Summary(f"Series {value.shape} {value.dtype}", f"{head}\n{table}")
    if isinstance(value, pd.Index):
        first = _REPR.repr(list(value[:TABLE_ROWS]))
        more = f" (first {TABLE_ROWS})" if len(value) > TABLE_ROWS else ""
        return Summary(
            f"{type(value).__name__} ({len(value):,},) {value.dtype}",
            f"{type(value).__name__} of length {len(value):,}, dtype {value.dtype}{more}: {first}",
        )
    return None


def _frame_text(frame: Any, kind: str, rows: int, cols: int) -> str:
    """A pandas frame's first rows and columns (a wide frame shows how many it left out)."""
    part = frame.iloc[:TABLE_ROWS, :TABLE_COLS]
    shown = f"first {min(rows, TABLE_ROWS)} rows"
    if cols > TABLE_COLS:
        shown += f" and first {TABLE_COLS} of {cols:,} columns"
    dtypes = ", ".join(f"{safe_str(name, CELL_WIDTH)} {dtype}" for name, dtype in part.dtypes.items())
    table = part.to_string(max_colwidth=CELL_WIDTH, show_dimensions=False)
    return f"{kind} of shape ({rows:,}, {cols:,}); dtypes: {dtypes}; {shown}:\n{table}"


# -- polars ----------------------------------------------------------------------------
def _polars(value: Any) -> Summary | None:
    pl = sys.modules.get("polars")
    if pl is None or not isinstance(value, (pl.DataFrame, pl.Series)):
        return None
    options = {"tbl_rows": TABLE_ROWS, "tbl_cols": TABLE_COLS, "fmt_str_lengths": CELL_WIDTH}
    if isinstance(value, pl.DataFrame):
        rows, cols = value.shape
        part = value.head(TABLE_ROWS).select(value.columns[:TABLE_COLS])
        with pl.Config(**options):
            table = str(part)
        more = f" and first {TABLE_COLS} of {cols:,} columns" if cols > TABLE_COLS else ""
        head = f"polars DataFrame of shape ({rows:,}, {cols:,}); first {min(rows, TABLE_ROWS)} rows{more}:"
        return Summary(f"polars DataFrame {value.shape}", f"{head}\n{table}")
    with pl.Config(**options):
        table = str(value.head(TABLE_ROWS))
    head = f"polars Series {value.name!r} of length {len(value):,}, dtype {value.dtype}; first {TABLE_ROWS} values:"
    return Summary(f"polars Series ({len(value):,},) {value.dtype}", f"{head}\n{table}")


# -- numpy -----------------------------------------------------------------------------
def _numpy(value: Any) -> Summary | None:
    np = sys.modules.get("numpy")
    if np is None or not isinstance(value, np.ndarray):
        return None
    kind = f"{type(value).__name__} {value.shape} {value.dtype}"
    if value.ndim > MAX_ARRAY_DIMS:
        first = np.array2string(value.ravel()[:ARRAY_ITEMS], threshold=ARRAY_ITEMS, edgeitems=EDGE_ITEMS)
        return Summary(kind, f"array of shape {value.shape}, dtype {value.dtype}; its first values, flat: {first}")
    formatter = {"all": lambda x: _REPR.repr(x)[:CELL_WIDTH]} if value.dtype.kind == "O" else None
    text = np.array2string(value, threshold=ARRAY_ITEMS, edgeitems=EDGE_ITEMS, max_line_width=120, formatter=formatter)
    return Summary(kind, f"array of shape {value.shape}, dtype {value.dtype}:\n{text}")


# -- anything with head/to_string/shape (a frame of another library) --------------------
def _table_like(value: Any) -> Summary | None:
    shape = getattr(value, "shape", None)
    if shape is None or not callable(getattr(value, "head", None)) or not callable(getattr(value, "to_string", None)):
        return None
    kind = type(value).__name__
    head = value.head(TABLE_ROWS)
    try:
        table = head.to_string(max_cols=TABLE_COLS, max_colwidth=CELL_WIDTH)
    except TypeError:  # its to_string takes no such options (a Series-like)
        table = head.to_string()
    return Summary(f"{kind} {tuple(shape)}", f"{kind} of shape {tuple(shape)}; first {TABLE_ROWS} rows:\n{table}")


# -- everything else -------------------------------------------------------------------
class _BoundedRepr(reprlib.Repr):
    """reprlib, with a huge int shown by its size and an element whose repr raises saying so."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > MAX_INT_BITS:
            return f"<int of {x.bit_length():,} bits, about {int(x.bit_length() * 0.30103):,} digits>"
        return super().repr_int(x, level)

    def repr_instance(self, x: Any, level: int) -> str:
        try:
            text = repr(x)
        except Exception as err:  # noqa: BLE001
            return f"<{type(x).__name__} object: its repr raised {type(err).__name__}: {safe_str(err, 100)}>"
        if len(text) > self.maxother:
            keep = max(0, (self.maxother - 3) // 2)
            return text[:keep] + "..." + text[len(text) - keep :]
        return text


_REPR = _BoundedRepr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = REPR_CHARS
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = 50


def _plain(value: Any) -> Summary:
    kind = type(value).__name__
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value[:200])
        more = f" (first 200 of {len(value):,})" if len(value) > 200 else ""
        return Summary(kind, f"{kind} of {len(value):,} bytes{more}: {data!r}")
    if hasattr(_REPR, "repr_" + "_".join(kind.split())):  # a type reprlib walks without its full repr
        return Summary(kind, _REPR.repr(value))
    try:  # its own repr, once: the prompt cuts it to its bound and says from how long
        text = repr(value)
    except Exception as err:  # noqa: BLE001
        why = f"{type(err).__name__}: {safe_str(err)}"
        return Summary(kind, f"<{kind} object: its repr raised {why}>", f"its repr raised {why}: sent as its type only")
    return Summary(kind, text)
