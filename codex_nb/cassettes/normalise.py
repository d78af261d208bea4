"""What a replayed request is compared after: the parts that change on every run, masked.

A notebook replayed in CI differs from its recording in ways that are not the
conversation: a new thread id (``prompt_cache_key``), fresh uuids, the clock (timestamps,
the ``<current_time_reminder>`` text), and where it runs (a temp dir's random name, the
checkout's path, the home directory). Each becomes a fixed placeholder on both sides, so
the comparison sees only what the notebook said.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

DEFAULT_KEYS = frozenset({"prompt_cache_key"})
_REMINDER = re.compile(r"(<current_time_reminder>).*?(</current_time_reminder>)", re.S)
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\s?UTC)?(?![\d:])"
)
_DURATION = re.compile(r"\b(Wall time|elapsed|took): \d+(?:\.\d+)? ?(?:ms|s|seconds)\b")


def path_rules(extra: Iterable[str] = ()) -> list[tuple[re.Pattern[str], str]]:
    """Paths that differ between runs: a temp dir with its random part(s), then cwd, then home."""
    rules: list[tuple[re.Pattern[str], str]] = []
    temps = {tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir())}
    for temp in sorted(temps, key=len, reverse=True):
        # pytest's tmp_path has three random levels; mkdtemp's one
        rules.append(
            (re.compile(re.escape(temp) + r"/(?:pytest-of-[^/\s\"']+/pytest-\d+/[^/\s\"']+|[^/\s\"']+)"), "<tmp>")
        )
    places = [(p, "<cwd>") for p in (os.getcwd(), os.path.realpath(os.getcwd()), *extra)]
    places += [(str(Path.home()), "<home>")]
    for place, label in sorted(set(places), key=lambda p: len(p[0]), reverse=True):
        if len(place) > 1:  # "/" as cwd or home would mask every path
            rules.append((re.compile(re.escape(place) + r"(?=[/\\\s\"']|$)"), label))
    return rules


def normaliser(
    *, keys: Iterable[str] = DEFAULT_KEYS, paths: Iterable[str] = (), text: Callable[[str], str] | None = None
) -> Callable[[Any], Any]:
    """A function from a JSON value to its normal form (``keys``' values masked, strings cleaned)."""
    masked = frozenset(keys)
    rules = path_rules(paths)

    def clean(value: str) -> str:
        if "<current_time_reminder>" in value:
            value = _REMINDER.sub(r"\1<time>\2", value)
        value = _UUID.sub("<uuid>", value)
        value = _TIMESTAMP.sub("<timestamp>", value)
        value = _DURATION.sub(r"\1: <duration>", value)
        for pattern, label in rules:
            value = pattern.sub(label, value)
        return text(value) if text is not None else value

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return clean(value)
        if isinstance(value, dict):
            return {k: (f"<{k}>" if k in masked else walk(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk
