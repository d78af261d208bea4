"""The Codex releases codex_nb supports, and what each offers.

The range is the one ``schema/protocol.json`` was generated from (``range``: every release
``.ci/compat`` checks, oldest .. the pin); its ``methods_since`` / ``methods_until`` say which
release added or dropped each method, so a binary's ``features`` follow from its version alone.
A server can still refuse a method its version should have (a build with a feature off): the
client then marks it missing (``CodexAppServer.features``) and says so, never a deep traceback.
"""

from __future__ import annotations

from typing import Any

from .binary import CodexVersionError, parse_version, supported_range, upgrade_hint

FEATURES: dict[str, str] = {
    "turn/steer": "turn/steer",
    "turn/interrupt": "turn/interrupt",
    "thread/resume": "thread/resume",
    "thread/fork": "thread/fork",
    "thread/list": "thread/list",
    "plan updates": "turn/plan/updated",
    "questions": "item/tool/requestUserInput",
    "hooks notifications": "hook/started",
    "thread/revert": "thread/revert",
    "thread/compact/start": "thread/compact/start",
    "thread/name/set": "thread/name/set",
    "thread/archive": "thread/archive",
    "thread/unarchive": "thread/unarchive",
    "thread/delete": "thread/delete",
    "goals": "thread/goal/set",
    "thread history pages": "thread/turns/list",
}
"""A feature codex_nb uses (the widgets ask by this name) -> the app-server method it rests on.
Every method is in ``protocol.json``'s subset (``schema.CLIENT_REQUESTS`` / ``NOTIFICATIONS`` /
``SERVER_REQUESTS``), so the range's table dates it; ``tests/unit/app_server/test_codex_versions.py``
checks that."""


def _range() -> dict[str, Any]:
    from .schema import protocol

    found: dict[str, Any] = protocol()["range"]
    return found


def checked_releases() -> list[str]:
    """Every release the range's schema was merged from (``.ci/compat`` runs the smoke suite on each)."""
    return [str(v) for v in _range()["releases"]]


def _key(version: str) -> tuple[int, int, int]:
    parsed = parse_version(version)
    assert parsed is not None, version  # only versions parse_version accepted get here
    return parsed


def method_since(method: str) -> str | None:
    """The first release of the range with ``method`` (the oldest when all have it; None if none does)."""
    span = _range()
    if method in span["methods_since"]:
        return str(span["methods_since"][method])
    from .schema import protocol

    proto = protocol()
    # a method of the subset the range's table does not date is in every release of the range
    known = any(method in proto[t] for t in ("client_requests", "notifications", "server_requests"))
    return str(span["oldest"]) if known or method in span["methods_until"] else None


def features_of(version: str | None) -> dict[str, bool]:
    """Which ``FEATURES`` a release offers, from the range's method table (all of them for an
    unknown version, e.g. a cassette recorded without one: nothing can be hidden on a guess)."""
    if not version or parse_version(version) is None:
        return dict.fromkeys(FEATURES, True)
    until = _range()["methods_until"]
    out = {}
    for feature, method in FEATURES.items():
        since = method_since(method)
        out[feature] = (
            since is not None
            and _key(version) >= _key(since)
            and (method not in until or _key(version) <= _key(str(until[method])))
        )
    return out


def missing_method(method: str, version: str | None, why: str) -> CodexVersionError:
    """The error for an app-server that refused ``method`` as unknown (its ``why``)."""
    oldest, newest = supported_range()
    since = method_since(method)
    added = f" (Codex has it since {since})" if since else ""
    return CodexVersionError(
        f"codex app-server {version or '(unknown version)'} does not offer {method}{added}: {why}; "
        f"codex_nb supports Codex {oldest} .. {newest}; {upgrade_hint()}",
        version=version,
        oldest=oldest,
        newest=newest,
    )


__all__ = [
    "FEATURES",
    "CodexVersionError",
    "checked_releases",
    "features_of",
    "method_since",
    "missing_method",
    "supported_range",
    "upgrade_hint",
]
