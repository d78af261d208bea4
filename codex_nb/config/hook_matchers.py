"""Matchers and hook tool names: which hooks a call wakes, by the names Claude-style hooks use.

* ``None``, ``""`` or ``"*"`` match every tool;
* a string made only of ``[A-Za-z0-9_|]`` is an exact match against its ``|`` alternatives;
* anything else is a regular expression matched **unanchored** (``re.search``) against the
  canonical hook tool name or any of its aliases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


_EXACT = re.compile(r"[A-Za-z0-9_|]+")

HOOK_TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "apply_patch": ("Write", "Edit"),
    "spawn_agent": ("Agent",),
}
"""Aliases a matcher may also name, keyed by canonical hook tool name."""

SHELL_HOOK_TOOL_NAMES = frozenset({"Bash", "apply_patch"})
"""Tools whose block message quotes ``tool_input.command``, as Codex's does."""


def matcher_inputs(tool_name: str, aliases: Iterable[str] | None = None) -> tuple[str, ...]:
    """The canonical hook tool name followed by its aliases."""
    extra = HOOK_TOOL_ALIASES.get(tool_name, ()) if aliases is None else tuple(aliases)
    return (tool_name, *extra)


def mcp_hook_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``; the prefix is added even for non-prefixed servers."""
    return f"mcp__{server}__{tool}"


@dataclass(frozen=True)
class Matcher:
    """A compiled matcher. Raises ``re.error`` for a regex that does not compile."""

    pattern: str | None
    kind: str = field(init=False)
    names: frozenset[str] = field(init=False, default=frozenset())
    regex: re.Pattern[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.pattern in (None, "", "*"):
            object.__setattr__(self, "kind", "all")
        elif _EXACT.fullmatch(self.pattern):
            object.__setattr__(self, "kind", "exact")
            object.__setattr__(self, "names", frozenset(p for p in self.pattern.split("|") if p))
        else:
            object.__setattr__(self, "kind", "regex")
            object.__setattr__(self, "regex", re.compile(self.pattern))

    def matches(self, inputs: Iterable[str]) -> bool:
        """Whether a call with these hook tool names (the canonical name, then its aliases, as
        ``matcher_inputs`` gives them) wakes the hook: any name, an exact alternative, or a regex
        found anywhere in one name."""
        if self.kind == "all":
            return True
        if self.kind == "exact":
            return any(name in self.names for name in inputs)
        assert self.regex is not None
        return any(self.regex.search(name) for name in inputs)
