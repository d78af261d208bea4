"""The record modes, with vcrpy's names and meanings, so a person who knows vcrpy knows these.

* ``once``: record when the file is missing; when it exists, replay only (an unmatched
  request is an error, never a request to the network).
* ``none``: replay only; a missing file is an error.
* ``new_episodes``: replay what matches, record the rest (appended to the file).
* ``all``: never replay; record everything, the new recording replacing the file.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError

RECORD_MODES = ("once", "none", "new_episodes", "all")


def check_record_mode(mode: Any) -> str:
    """``mode`` as one of ``RECORD_MODES`` (vcrpy's ``RecordMode`` members are accepted too)."""
    value = getattr(mode, "value", mode)
    if value not in RECORD_MODES:
        raise ConfigError(
            f"record_mode must be one of {', '.join(repr(m) for m in RECORD_MODES)}, got {mode!r} "
            f"('once' records a missing cassette and replays an existing one)"
        )
    return str(value)


def rerecord_hint(mode: str) -> str:
    """How to re-record, said in every mismatch error."""
    if mode == "new_episodes":
        return "record_mode='all' re-records the whole cassette"
    return "record_mode='new_episodes' records the new request, record_mode='all' re-records the whole cassette"
