"""Answers checked against the request they answer, in the wire shape the asker expects.

Kept apart from the broker (``frontend.requests``) because it needs the request and permission
models: a session imports the broker at once, this module only when the first answer comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..protocol.frontend import (
    ApplyPatchApprovalRequestEvent,
    ElicitationRequestEvent,
    ExecApprovalRequestEvent,
    FileSystemPermissions,
    NetworkPermissions,
    PermissionGrantScope,
    PermissionProfile,
    RequestPermissionsEvent,
    RequestPermissionsResponse,
    RequestUserInputEvent,
)
from .decisions import choose, default_options
from .elicitation import ContentError, normalize_elicitation_answer
from ..errors import AnswerError

MAX_ANSWER_TEXT = 10_000
"""The longest answer text accepted for one question."""


def normalize_answer(request: Any, response: Any) -> dict[str, Any]:
    """``response`` checked against the question, approval, permission request or elicitation of
    ``request`` (a ``FrontendRequest``), as the wire answer; ``AnswerError`` says what is wrong."""
    msg = request.msg
    if isinstance(msg, RequestUserInputEvent):
        return normalize_user_input_answer(msg, response)
    if isinstance(msg, (ExecApprovalRequestEvent, ApplyPatchApprovalRequestEvent)):
        return normalize_approval_answer(msg, response)
    if isinstance(msg, ElicitationRequestEvent):
        try:
            return normalize_elicitation_answer(msg, response)
        except ContentError as err:
            raise AnswerError(str(err)) from None
    return normalize_permissions_answer(msg, response)


def normalize_approval_answer(
    msg: ExecApprovalRequestEvent | ApplyPatchApprovalRequestEvent, response: Any
) -> dict[str, Any]:
    """One of the offered decisions (its key or name, or ``{"decision": ...}``): ``{"decision": key}``."""
    what = "command" if isinstance(msg, ExecApprovalRequestEvent) else "changes"
    try:
        return {"decision": choose(msg.available_decisions or default_options(what), response).key}
    except ValueError as err:
        raise AnswerError(str(err)) from None


def normalize_user_input_answer(msg: RequestUserInputEvent, response: Any) -> dict[str, Any]:
    """Check an answer against the questions; return the wire ``{"answers": {...}}``."""
    if not isinstance(response, Mapping):
        raise AnswerError(
            f"a question answer must be a mapping, got {type(response).__name__}; "
            f"use {{question_id: 'label'}} or {{'answers': {{question_id: {{'answers': [...]}}}}}}"
        )
    ids = [q.id for q in msg.questions]
    wire = set(response) == {"answers"} and isinstance(response["answers"], Mapping) and "answers" not in ids
    answers = response["answers"] if wire else response
    out: dict[str, Any] = {}
    for qid, value in answers.items():
        if qid not in ids:
            raise AnswerError(f"answer for unknown question id {qid!r}; the questions are {ids}")
        if isinstance(value, Mapping) and set(value) == {"answers"}:
            value = value["answers"]
        elif wire:
            raise AnswerError(f"answer for {qid!r} must be {{'answers': [strings]}}, got {value!r}")
        strings = [value] if isinstance(value, str) else value
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise AnswerError(f"answer for {qid!r} must be a string or a list of strings, got {value!r}")
        if any(len(s) > MAX_ANSWER_TEXT for s in strings):
            raise AnswerError(f"answer for {qid!r} is longer than {MAX_ANSWER_TEXT} characters")
        out[qid] = {"answers": list(strings)}
    return {"answers": out}


_DECISIONS = {"allow_turn": PermissionGrantScope.TURN, "allow_session": PermissionGrantScope.SESSION}


def normalize_permissions_answer(msg: RequestPermissionsEvent, response: Any) -> dict[str, Any]:
    """A decision string or a wire response; the grant is intersected with the request."""
    if response == "deny":
        return RequestPermissionsResponse(permissions=PermissionProfile()).model_dump(mode="json")
    strict = False
    if isinstance(response, str) and response in _DECISIONS:
        granted, scope = msg.permissions, _DECISIONS[response]
    elif isinstance(response, Mapping):
        extra = sorted(set(response) - {"permissions", "scope", "strictAutoReview", "strict_auto_review"})
        if extra or "permissions" not in response:
            raise AnswerError(
                f"a permissions answer needs 'permissions' (and optional 'scope'); got keys {sorted(response)}"
            )
        try:
            scope = PermissionGrantScope(response.get("scope", "turn"))
        except ValueError:
            raise AnswerError(f"scope must be 'turn' or 'session', got {response.get('scope')!r}") from None
        granted = _granted_profile(response["permissions"])
        strict = response.get("strictAutoReview", response.get("strict_auto_review")) or False
        if not isinstance(strict, bool):
            raise AnswerError(f"strictAutoReview must be true or false, got {strict!r}")
    else:
        raise AnswerError(
            f"a permissions answer must be 'allow_turn', 'allow_session', 'deny' or "
            f"{{'permissions': {{...}}, 'scope': 'turn'|'session'}}; got {response!r}"
        )
    kept = msg.permissions.intersect(granted)
    return RequestPermissionsResponse(permissions=kept, scope=scope, strict_auto_review=strict).model_dump(mode="json")


def _granted_profile(raw: Any) -> PermissionProfile:
    """A grant in core's shape (``file_system``) or the app-server's (``fileSystem``, camelCase
    keys), checked strictly: a grant is never guessed from a malformed value."""
    if raw is None:
        return PermissionProfile()
    if (
        not isinstance(raw, Mapping)
        or set(raw) - {"network", "file_system", "fileSystem"}
        or {"file_system", "fileSystem"} <= set(raw)
    ):
        raise AnswerError(f"'permissions' must be {{'network'?, 'file_system'? (or 'fileSystem')}}, got {raw!r}")
    network = raw.get("network")
    if network is not None:
        if (
            not isinstance(network, Mapping)
            or set(network) - {"enabled"}
            or not isinstance(network.get("enabled", False), (bool, type(None)))
        ):
            raise AnswerError(f"granted network must be {{'enabled': true | false}}, got {network!r}")
    fs = raw.get("file_system", raw.get("fileSystem"))
    try:
        net = None if network is None else NetworkPermissions.model_validate(network, strict=True)
        files = None if fs is None else _granted_file_system(fs)
    except AnswerError:
        raise
    except Exception as err:  # pydantic.ValidationError and friends
        raise AnswerError(f"malformed granted permissions {raw!r}: {err}") from None
    return PermissionProfile(network=net, file_system=files)


_FS_KEYS = {"read", "write", "entries", "glob_scan_max_depth", "globScanMaxDepth"}


def _granted_file_system(fs: Any) -> FileSystemPermissions:
    if not isinstance(fs, Mapping):
        raise AnswerError(f"granted file_system must be a mapping, got {fs!r}")
    unknown = sorted(set(fs) - _FS_KEYS)
    if unknown:
        raise AnswerError(f"granted file_system has unknown keys {unknown}; known: {sorted(_FS_KEYS)}")
    for key in ("read", "write"):
        value = fs.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(p, str) for p in value)):
            raise AnswerError(f"granted file_system.{key} must be a list of path strings, got {value!r}")
    roots = FileSystemPermissions.from_roots(fs.get("read"), fs.get("write"))
    depth = fs.get("glob_scan_max_depth", fs.get("globScanMaxDepth"))
    if fs.get("entries") is None and depth is None:
        return roots
    canonical = FileSystemPermissions.model_validate(
        {"entries": fs.get("entries") or [], "glob_scan_max_depth": depth}, strict=False
    )
    return FileSystemPermissions(
        entries=roots.entries + tuple(e for e in canonical.entries if e not in roots.entries),
        glob_scan_max_depth=canonical.glob_scan_max_depth,
    )
