"""Where the nbval sanitizer rules for agent notebooks are (``nbval_sanitize.cfg``, shipped beside this
module): pass the path to ``pytest --nbval --nbval-sanitize-with``."""

from __future__ import annotations

from pathlib import Path

NBVAL_SANITIZE = Path(__file__).with_name("nbval_sanitize.cfg")
"""nbval sanitizer rules for agent notebooks (ids, call ids, timestamps, durations, temp paths):
``pytest --nbval --nbval-sanitize-with "$(python -c 'import codex_nb.testing as t; print(t.NBVAL_SANITIZE)')"``."""

__all__ = ["NBVAL_SANITIZE"]
