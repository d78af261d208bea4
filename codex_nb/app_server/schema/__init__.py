"""The subset of Codex's app-server JSON Schema this client uses, and a validator for it.

``protocol.json`` is generated from the binary (never hand-edited) by::

    python -m codex_nb.app_server.schema [--codex PATH] [--release BIN ...]

(``bash .ci/compat --schema`` passes every release of ``.ci/codex-compat-versions``), which runs
``codex app-server generate-json-schema --experimental --out DIR`` and keeps the methods in
``CLIENT_REQUESTS`` / ``NOTIFICATIONS`` / ``SERVER_REQUESTS`` plus every definition they reach,
merged over the supported range (``release_range``: what some release lacks is optional and
notes the release that added it; ``range`` lists the releases and when each method came). Tests validate what we send
and what the real server sends against it (``CodexAppServer(validate=True)``).

Modules:

* ``__main__``: regenerate ``protocol.json`` from the installed binaries.
* ``release_range``: merge the releases' schemas into one.

Layer: part of ``app_server/``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("protocol.json")

CLIENT_REQUESTS = (
    "initialize",
    "thread/start",
    "thread/resume",
    "thread/fork",
    "thread/list",
    "turn/start",
    "turn/steer",
    "turn/interrupt",
    "thread/goal/set",
    "thread/goal/get",
    "thread/goal/clear",
    "thread/revert",
    "thread/compact/start",
    "thread/name/set",
    "thread/archive",
    "thread/unarchive",
    "thread/delete",
    "thread/read",
    "thread/turns/list",
    "thread/items/list",
    "thread/approveGuardianDeniedAction",
)
NOTIFICATIONS = (
    "error",
    "warning",
    "thread/started",
    "turn/started",
    "turn/completed",
    "turn/plan/updated",
    "item/started",
    "item/completed",
    "item/agentMessage/delta",
    "hook/started",
    "hook/completed",
    "serverRequest/resolved",
    "thread/goal/updated",
    "thread/goal/cleared",
    "thread/tokenUsage/updated",
    "turn/diff/updated",
    "item/autoApprovalReview/started",
    "item/autoApprovalReview/completed",
    "guardianWarning",
    "thread/status/changed",
    "thread/settings/updated",
    "thread/queue/changed",
)
SERVER_REQUESTS = (
    "item/tool/requestUserInput",
    "item/permissions/requestApproval",
    "item/commandExecution/requestApproval",
    "item/fileChange/requestApproval",
    "mcpServer/elicitation/request",
)


@lru_cache(maxsize=1)
def protocol() -> dict[str, Any]:
    """The committed schema subset: methods -> type names, and the flat definitions."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


class SchemaValidator:
    """Validates payloads by type name (``ThreadStartParams``) or by method and direction."""

    def __init__(self) -> None:
        import jsonschema  # a test/dev dependency: only validating clients need it

        self._jsonschema = jsonschema
        self._proto = protocol()
        self._cache: dict[str, Any] = {}

    def type_of(self, table: str, method: str, part: str = "params") -> str | None:
        entry = self._proto[table].get(method)
        if entry is None:
            return None
        return entry if isinstance(entry, str) else entry.get(part)

    def errors(self, type_name: str, payload: Any) -> list[str]:
        """Every violation of ``type_name`` by ``payload`` (empty when valid)."""
        validator = self._cache.get(type_name)
        if validator is None:
            schema = {"$ref": f"#/definitions/{type_name}", "definitions": self._proto["definitions"]}
            validator = self._jsonschema.Draft7Validator(schema)
            self._cache[type_name] = validator
        return [
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"[:400]
            for e in validator.iter_errors(payload)
        ]
