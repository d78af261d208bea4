"""Reading a file a magic was pointed at, through the one bounded reader (``config.files``).

A refusal is a ``SourceError``, the error every magic turns into a ``UsageError``.
"""

from __future__ import annotations

from pathlib import Path

from ..config.files import MAX_FILE_BYTES
from ..config.files import read_text_file as _read_text_file
from .sources import SourceError

__all__ = ["MAX_FILE_BYTES", "read_text_file"]


def read_text_file(path: Path, *, what: str) -> str:
    """The UTF-8 text of the regular file ``path``; ``what`` names it in errors ("config file")."""
    return _read_text_file(path, what=what, error=SourceError)
