"""A small Codex home shipped beside this module (``sample_codex_home/``), for notebooks, docs and
tests of the sessions list and browser that must run without a binary: three sessions the real
Codex wrote (the pinned release, named in each ``session_meta``: a two-turn plan, a plain reply, a
one-turn plan) and a copy of one cut off in its last line, as a session still running leaves it.
Read-only: copy it before writing into it."""

from __future__ import annotations

from pathlib import Path

SAMPLE_CODEX_HOME = Path(__file__).with_name("sample_codex_home")
"""``cx.codex_sessions(SAMPLE_CODEX_HOME)`` lists its four sessions."""

__all__ = ["SAMPLE_CODEX_HOME"]
