"""Permission profiles between the app-server's camelCase v2 shape and codex_nb's types."""

from __future__ import annotations

from typing import Any

from ..protocol.frontend import (
    FileSystemAccess,
    FileSystemEntry,
    FileSystemPermissions,
    NetworkPermissions,
    PathRef,
    PermissionProfile,
)

_ACCESS_IN = {"read": FileSystemAccess.READ, "write": FileSystemAccess.WRITE, "deny": FileSystemAccess.NONE}
_ACCESS_OUT = {v: k for k, v in _ACCESS_IN.items()}


def _entry_in(raw: dict[str, Any]) -> FileSystemEntry | None:
    path = raw.get("path") or {}
    if path.get("type") == "path":
        ref = PathRef(type="path", path=path["path"])
    elif path.get("type") == "glob_pattern":
        ref = PathRef(type="glob_pattern", pattern=path["pattern"])
    else:  # special paths (e.g. the workspace root) have no codex_nb counterpart: not grantable here
        return None
    return FileSystemEntry(path=ref, access=_ACCESS_IN[raw["access"]])


def profile_from_v2(raw: dict[str, Any] | None) -> PermissionProfile:
    """``RequestPermissionProfile`` (``fileSystem``/``network``) -> ``PermissionProfile``."""
    raw = raw or {}
    network = raw.get("network")
    fs = raw.get("fileSystem")
    files = None
    if fs:
        entries = [e for e in (_entry_in(x) for x in fs.get("entries") or []) if e is not None]
        legacy = FileSystemPermissions.from_roots(fs.get("read"), fs.get("write")).entries
        all_entries = tuple(entries) + tuple(e for e in legacy if e not in entries)
        if all_entries:
            files = FileSystemPermissions(entries=all_entries, glob_scan_max_depth=fs.get("globScanMaxDepth"))
    net = NetworkPermissions(enabled=network.get("enabled")) if network else None
    return PermissionProfile(network=net, file_system=files)


def _entry_out(entry: FileSystemEntry) -> dict[str, Any]:
    path = (
        {"type": "path", "path": entry.path.path}
        if entry.path.type == "path"
        else {"type": "glob_pattern", "pattern": entry.path.pattern}
    )
    return {"path": path, "access": _ACCESS_OUT[entry.access]}


def granted_to_v2(normalized: dict[str, Any], request: PermissionProfile) -> dict[str, Any]:
    """A normalized codex_nb answer (``{"permissions": ..., "scope": ...}``) ->
    ``PermissionsRequestApprovalResponse``. The grant was already intersected with the request."""
    granted = normalized.get("permissions") or {}
    out: dict[str, Any] = {}
    if granted.get("network") is not None:
        out["network"] = {"enabled": granted["network"].get("enabled")}
    if granted.get("file_system") is not None and request.file_system is not None:
        kept = PermissionProfile.model_validate({"file_system": _fs_model(granted["file_system"])}).file_system
        if kept is not None and not kept.is_empty():
            out["fileSystem"] = {"entries": [_entry_out(e) for e in kept.entries]}
    return {"permissions": out, "scope": normalized.get("scope", "turn")}


def _fs_model(raw: dict[str, Any]) -> Any:
    if "entries" in raw:
        return raw
    return FileSystemPermissions.from_roots(raw.get("read"), raw.get("write"))
