"""``request_permissions``: ask for extra filesystem / network access and wait
(codex-rs/core/src/tools/handlers/request_permissions.rs).

Checks in Codex's order: payload kind, environment, host-native cwd, full parse
(paths ``~``-expanded, absolutized against ``session.cwd`` and normalized), normalize
(drop ``network`` without ``enabled``, dedupe, drop an empty ``file_system``, globs only
as deny entries), non-empty; then the session rules (approval policy ``never`` grants
nothing at once) and the frontend. The grant is intersected with the request; a
``turn`` grant applies to later calls of the turn, a ``session`` grant to the rest of
the session (see ``granted_permissions``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...protocol.frontend import (
    FileSystemAccess,
    FileSystemEntry,
    FileSystemPermissions,
    NetworkPermissions,
    PathRef,
    PermissionGrantScope,
    PermissionProfile,
    RequestPermissionsEvent,
    RequestPermissionsResponse,
)
from ...protocol.serde import SerdeError
from ...protocol.serde import loads as serde_loads
from ...protocol.serde_json import (
    SerdeJsonError,
    from_value,
    missing_field,
    struct_shape,
    unknown_variant,
    value_from_str,
)
from ...protocol.wire import dumps
from ...frontend.requests import Outcome, RequestKind
from ..base import Tool
from ..tool_errors import Fatal, RespondToModel
from ..invocation import ToolInvocation, TurnContext
from ..payload import ToolOutput
from ..schema import function_spec
from .ask import ask

NAME = "request_permissions"
PRIMARY_ENVIRONMENT_ID = "local"
UNSUPPORTED_PAYLOAD = "request_permissions handler received unsupported payload"
NO_PRIMARY = "request_permissions requires a primary environment"
GLOB_NOT_DENY = "glob file system permissions only support deny-read entries"
EMPTY_REQUEST = "request_permissions requires at least one permission"
CANCELLED = "request_permissions was cancelled before receiving a response"

DESCRIPTION = (
    "Request additional filesystem or network permissions from the user and wait for the client to grant a subset "
    "of the requested permission profile. Use environment_id to target a specific attached environment; omit it to "
    "use the primary environment. Relative filesystem paths resolve against the selected environment cwd. Granted "
    "permissions apply automatically to later shell-like commands in the current turn, or for the rest of the "
    "session if the client approves them at session scope."
)


def parameters() -> dict[str, Any]:
    def paths(what: str) -> dict[str, Any]:
        return {
            "type": "array",
            "description": f"Absolute paths to grant {what} access; omit when none are needed.",
            "items": {"type": "string"},
        }

    file_system = {
        "type": "object",
        "description": "Filesystem access request.",
        "properties": {"read": paths("read"), "write": paths("write")},
        "additionalProperties": False,
    }
    network = {
        "type": "object",
        "description": "Network access request.",
        "properties": {
            "enabled": {
                "type": "boolean",
                "description": "True requests network access; false or omitted requests none.",
            }
        },
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "environment_id": {
                "type": "string",
                "description": "Environment id from <environment_context>. Omit to use the primary environment.",
            },
            "permissions": {
                "type": "object",
                "description": "Filesystem or network access request.",
                "properties": {"file_system": file_system, "network": network},
                "additionalProperties": False,
            },
            "reason": {
                "type": "string",
                "description": "Optional short explanation for why additional permissions are needed.",
            },
        },
        "required": ["permissions"],
        "additionalProperties": False,
    }


# -- argument parsing ---------------------------------------------------------------------
class _Profile(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", title="RequestPermissionProfile")
    network: NetworkPermissions | None = None
    file_system: Any = None


class _LegacyFs(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")
    read: list[str] | None = None
    write: list[str] | None = None


class _CanonicalFs(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")
    entries: list[FileSystemEntry]
    glob_scan_max_depth: int | None = None


class _Args(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="ignore")
    environment_id: str | None = None
    environmentId: str | None = None
    reason: str | None = None
    permissions: _Profile


def parse_args(text: str, cwd: str) -> tuple[str | None, str | None, PermissionProfile]:
    """``(environment_id, reason, profile)`` with paths resolved against ``cwd``; raises SerdeError.

    Codex reads the arguments as a JSON Value first (syntax errors carry a position), then
    ``serde_json::from_value`` (type errors carry none, and numbers show as "number")."""
    try:
        raw = value_from_str(text)
        top = from_value(struct_shape(_Args), raw)
        profile = from_value(struct_shape(_Profile), raw.get("permissions") if isinstance(raw, dict) else None)
        fs_raw = (raw.get("permissions") or {}).get("file_system") if isinstance(raw, dict) else None
        file_system = None if fs_raw is None else _parse_fs(fs_raw, cwd)
    except SerdeJsonError as err:
        raise SerdeError(str(err)) from None
    network = profile.get("network")
    env = top.get("environment_id") or top.get("environmentId")
    net = NetworkPermissions.model_validate(network) if network is not None else None
    return env, top.get("reason"), PermissionProfile(network=net, file_system=file_system)


def _parse_fs(raw: Any, cwd: str) -> FileSystemPermissions:
    if not (isinstance(raw, dict) and "entries" in raw):
        legacy = from_value(struct_shape(_LegacyFs), raw)
        return FileSystemPermissions.from_roots(
            [resolve_path(p, cwd) for p in legacy.get("read") or []],
            [resolve_path(p, cwd) for p in legacy.get("write") or []],
        )
    canonical = from_value(struct_shape(_CanonicalFs, frozenset({"glob_scan_max_depth"})), raw)
    entries = []
    for entry in canonical["entries"]:
        path = entry["path"] if isinstance(entry, dict) else {}
        kind = path.get("type") if isinstance(path, dict) else None
        if kind not in ("path", "glob_pattern"):
            raise SerdeJsonError(unknown_variant(str(kind), ["path", "glob_pattern"]))
        field = "path" if kind == "path" else "pattern"
        if not isinstance(path.get(field), str):
            raise SerdeJsonError(missing_field(field))
        value = resolve_path(path[field], cwd) if kind == "path" else path[field]
        entries.append(FileSystemEntry(path=PathRef(type=kind, **{field: value}), access=entry["access"]))
    return FileSystemPermissions(entries=tuple(entries), glob_scan_max_depth=canonical.get("glob_scan_max_depth"))


def resolve_path(path: str, cwd: str) -> str:
    """``~``-expand, absolutize against ``cwd``, drop ``.`` / ``..`` (symlinks are kept)."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def normalize(profile: PermissionProfile) -> PermissionProfile:
    network = profile.network if profile.network is not None and profile.network.enabled is not None else None
    file_system = profile.file_system
    if file_system is not None:
        entries: list[FileSystemEntry] = []
        for entry in file_system.entries:
            if entry.path.type == "glob_pattern" and entry.access != FileSystemAccess.NONE:
                raise RespondToModel(GLOB_NOT_DENY)
            if entry not in entries:
                entries.append(entry)
        file_system = FileSystemPermissions(entries=tuple(entries), glob_scan_max_depth=file_system.glob_scan_max_depth)
        file_system = None if file_system.is_empty() else file_system
    return PermissionProfile(network=network, file_system=file_system)


# -- grants ---------------------------------------------------------------------------------
def granted_permissions(turn: TurnContext) -> PermissionProfile:
    """What later calls of ``turn`` may use: the session's grants plus the turn's."""
    return turn.frontend.session_grants.union(turn.permission_grants)


def _record_grant(turn: TurnContext, response: RequestPermissionsResponse) -> None:
    if response.permissions.is_empty():
        return
    if response.scope == PermissionGrantScope.SESSION:
        turn.frontend.session_grants = turn.frontend.session_grants.union(response.permissions)
    else:
        turn.permission_grants = turn.permission_grants.union(response.permissions)


def _environment(text: str) -> Any:
    try:
        raw = serde_loads(text)
    except SerdeError:
        return None
    if not isinstance(raw, dict):
        return None
    return raw.get("environment_id", raw.get("environmentId"))


class RequestPermissionsTool(Tool):
    def __init__(self) -> None:
        super().__init__(NAME)

    def spec(self) -> dict[str, Any]:
        return function_spec(NAME, DESCRIPTION, parameters())

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        turn = invocation.turn
        if invocation.call.payload.kind != "function":
            raise RespondToModel(UNSUPPORTED_PAYLOAD)
        env = _environment(invocation.payload_text)
        if isinstance(env, str) and env != PRIMARY_ENVIRONMENT_ID:
            raise RespondToModel(f"unknown turn environment id `{env}`")
        cwd = turn.cwd
        if not cwd:
            raise RespondToModel(NO_PRIMARY)
        if not os.path.isabs(cwd):
            raise RespondToModel(
                f"request_permissions cwd `{cwd}` is not native to the Codex host: path is not absolute"
            )
        try:
            _env, reason, requested = parse_args(invocation.payload_text, cwd)
        except SerdeError as err:
            raise RespondToModel(f"failed to parse function arguments: {err}") from None
        requested = normalize(requested)
        if requested.is_empty():
            raise RespondToModel(EMPTY_REQUEST)
        response = await self._ask(invocation, reason, requested, cwd)
        _record_grant(turn, response)
        try:
            body = dumps(response.model_dump(mode="json"))
        except (TypeError, ValueError) as err:
            raise Fatal(f"failed to serialize request_permissions response: {err}") from None
        return ToolOutput(body=body, success=True)

    @staticmethod
    async def _ask(
        invocation: ToolInvocation, reason: str | None, requested: PermissionProfile, cwd: str
    ) -> RequestPermissionsResponse:
        if invocation.turn.config.approval_policy == "never":
            return RequestPermissionsResponse(permissions=PermissionProfile())
        event = RequestPermissionsEvent(
            call_id=invocation.call_id,
            turn_id=invocation.turn.turn_id,
            environment_id=PRIMARY_ENVIRONMENT_ID,
            started_at_ms=int(time.time() * 1000),
            reason=reason,
            permissions=requested,
            cwd=cwd,
        )
        settlement = await ask(invocation, RequestKind.PERMISSIONS, event, NAME)
        if settlement.outcome == Outcome.UNANSWERABLE:
            raise RespondToModel(str(settlement.response))
        if settlement.outcome in (Outcome.CANCELLED, Outcome.REPLACED):
            raise RespondToModel(CANCELLED)
        return RequestPermissionsResponse.model_validate(_revalidate(settlement.response))


def _revalidate(wire: dict[str, Any]) -> dict[str, Any]:
    """Turn the normalized wire response back into model input (legacy fs form -> entries)."""
    perms = wire["permissions"]
    fs = perms.get("file_system")
    if fs is not None and "entries" not in fs:
        fs = FileSystemPermissions.from_roots(fs.get("read"), fs.get("write"))
    return {"permissions": {"network": perms.get("network"), "file_system": fs}, "scope": wire["scope"]}
