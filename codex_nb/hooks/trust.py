"""The trust step: a hook found in a file runs only after a person has approved its definition.

Hooks discovered from files run only when their state entry's ``trusted_hash`` matches
the current hash of the definition. A trusted hook whose definition changed is
``modified`` and does not run until trusted again. Hooks defined in code (Python hooks,
``Config.from_toml(text)``) are ``managed``: always trusted. ``enabled = false`` disables
any file hook.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Literal

from ..config.hooks import HookSpec, HookStateEntry

TrustStatus = Literal["managed", "trusted", "modified", "untrusted", "disabled"]


class TrustStore:
    """``[hooks.state]`` entries plus trust granted through the API in this session."""

    def __init__(self, state: Mapping[str, HookStateEntry] | None = None) -> None:
        self._entries: dict[str, HookStateEntry] = dict(state or {})

    def update(self, state: Mapping[str, HookStateEntry]) -> None:
        self._entries.update(state)

    def status(self, spec: HookSpec) -> TrustStatus:
        entry = self._entries.get(spec.key)
        if entry is not None and not entry.enabled:
            return "disabled"
        if not spec.needs_trust:
            return "managed"
        if entry is None or entry.trusted_hash is None:
            return "untrusted"
        return "trusted" if entry.trusted_hash == spec.trust_hash else "modified"

    def runnable(self, spec: HookSpec) -> bool:
        return self.status(spec) in ("managed", "trusted")

    def trust(self, spec: HookSpec) -> str:
        entry = self._entries.get(spec.key, HookStateEntry())
        self._entries[spec.key] = HookStateEntry(trusted_hash=spec.trust_hash, enabled=entry.enabled)
        return spec.trust_hash

    def untrust(self, key: str) -> None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries[key] = HookStateEntry(trusted_hash=None, enabled=entry.enabled)

    def to_toml(self, specs: Iterable[HookSpec]) -> str:
        """``[hooks.state."<key>"] trusted_hash = "..."`` blocks for ``specs`` (paste into config.toml)."""
        blocks = [f"[hooks.state.{json.dumps(s.key)}]\ntrusted_hash = {json.dumps(s.trust_hash)}\n" for s in specs]
        return "\n".join(blocks)
