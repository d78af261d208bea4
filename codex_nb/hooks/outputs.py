"""Exit codes and JSON outputs -> one run's status, entries and data.

The texts are Codex's (``codex-rs/hooks/src/engine/output_parser.rs`` and
``events/{pre,post}_tool_use.rs``). Output objects are checked like Codex's wire types
(unknown keys, wrong types -> the whole object is invalid).
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from .._records import record
from ..config.hooks import EVENT_NAMES
from ..protocol.serde import nesting_error
from .hook_events import HookOutputEntry, HookOutputEntryKind, HookRunStatus

_UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage"}
_PRE_TOP = _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"}
_PRE_SPECIFIC = {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"}
_POST_SPECIFIC = {"hookEventName", "additionalContext", "updatedMCPToolOutput"}


@record(kw_only=True)
class RawRun:
    """What running one handler produced, before interpretation."""

    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    """Set when the run itself failed (timeout, spawn failure, exception)."""
    value: Any = None
    """Python hooks: the parsed output object (a dict), used instead of ``stdout``."""
    has_value: bool = False
    notes: list[HookOutputEntry] = field(default_factory=list)
    """Runner notes (e.g. output spilled to a file), prepended to the entries."""


@record(kw_only=True)
class RunResult:
    status: HookRunStatus = "completed"
    entries: list[HookOutputEntry] = field(default_factory=list)
    block_reason: str | None = None
    updated_input: Any = None
    additional_contexts: list[str] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    should_stop: bool = False
    stop_reason: str | None = None

    def add(self, kind: HookOutputEntryKind, text: str) -> None:
        self.entries.append(HookOutputEntry(kind=kind, text=text))

    def fail(self, text: str) -> None:
        self.status = "failed"
        self.add("error", text)

    @property
    def error(self) -> str | None:
        return next((e.text for e in self.entries if e.kind == "error"), None) if self.status == "failed" else None


def _trimmed(text: Any) -> str | None:
    return text.strip() or None if isinstance(text, str) else None


def looks_like_json(stdout: str) -> bool:
    return stdout.lstrip().startswith(("{", "["))


def _is_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _universal(obj: dict[str, Any]) -> dict[str, Any] | None:
    cont, suppress = obj.get("continue", True), obj.get("suppressOutput", False)
    if not isinstance(cont, bool) or not isinstance(suppress, bool):
        return None
    if not _is_str(obj.get("stopReason")) or not _is_str(obj.get("systemMessage")):
        return None
    return {
        "continue": cont,
        "stopReason": obj.get("stopReason"),
        "suppressOutput": suppress,
        "systemMessage": obj.get("systemMessage"),
    }


def _specific(obj: dict[str, Any], allowed: set[str]) -> dict[str, Any] | None | bool:
    """The validated hookSpecificOutput, None if absent, False if invalid."""
    spec = obj.get("hookSpecificOutput")
    if spec is None:
        return None
    if not isinstance(spec, dict) or set(spec) - allowed or spec.get("hookEventName") not in EVENT_NAMES:
        return False
    if not _is_str(spec.get("additionalContext")) or not _is_str(spec.get("permissionDecisionReason")):
        return False
    if spec.get("permissionDecision") not in (None, "allow", "deny", "ask"):
        return False
    return spec


def _object(raw: RawRun) -> dict[str, Any] | None | bool:
    """The output object; None for no output / plain text (ignored); False if invalid JSON."""
    if raw.has_value:
        return raw.value if isinstance(raw.value, dict) else (None if raw.value is None else False)
    text = raw.stdout.strip()
    if not text:
        return None
    if nesting_error(text) is not None:
        return False  # deeper than serde_json's limit: invalid output, not a RecursionError
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict):
        return value
    return False if looks_like_json(raw.stdout) else None


def _pre_decision(
    uni: dict[str, Any], spec: dict[str, Any] | None, obj: dict[str, Any]
) -> tuple[str | None, str | None]:
    """-> (invalid_reason, block_reason) following ``parse_pre_tool_use``."""
    if not uni["continue"]:
        return "PreToolUse hook returned unsupported continue:false", None
    if uni["stopReason"] is not None:
        return "PreToolUse hook returned unsupported stopReason", None
    if uni["suppressOutput"]:
        return "PreToolUse hook returned unsupported suppressOutput", None
    use_specific = spec is not None and any(
        spec.get(k) is not None for k in ("permissionDecision", "permissionDecisionReason", "updatedInput")
    )
    if use_specific:
        assert spec is not None
        decision = spec.get("permissionDecision")
        if spec.get("updatedInput") is not None and decision != "allow":
            return "PreToolUse hook returned updatedInput without permissionDecision:allow", None
        if decision == "allow" and spec.get("updatedInput") is None:
            return "PreToolUse hook returned unsupported permissionDecision:allow", None
        if decision == "ask":
            return "PreToolUse hook returned unsupported permissionDecision:ask", None
        if decision == "deny":
            reason = _trimmed(spec.get("permissionDecisionReason"))
            if reason is None:
                return (
                    "PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason"
                ), None
            return None, reason
        if decision is None and spec.get("permissionDecisionReason") is not None:
            return "PreToolUse hook returned permissionDecisionReason without permissionDecision", None
        return None, None
    decision = obj.get("decision")
    if decision == "approve":
        return "PreToolUse hook returned unsupported decision:approve", None
    if decision == "block":
        reason = _trimmed(obj.get("reason"))
        if reason is None:
            return "PreToolUse hook returned decision:block without a non-empty reason", None
        return None, reason
    if obj.get("reason") is not None:
        return "PreToolUse hook returned reason without decision", None
    return None, None


def _checked_object(raw: RawRun, specific_keys: Any, decisions: tuple[str | None, ...]) -> tuple[Any, Any, Any, bool]:
    """stdout as ``(object, universal fields, event-specific fields, valid)``.

    Plain text or empty output is not an object and is valid (ignored); text that looks
    like JSON but does not parse (``_object`` gives False) or an object with unknown or
    ill-typed fields is invalid, and the run fails open.
    """
    obj = _object(raw)
    if not isinstance(obj, dict):
        return obj, None, None, obj is not False
    uni = _universal(obj)
    spec = _specific(obj, specific_keys)
    valid = (
        uni is not None
        and spec is not False
        and not set(obj) - _PRE_TOP
        and obj.get("decision") in decisions
        and _is_str(obj.get("reason"))
    )
    return obj, uni, spec, valid


def _exit_failure(exit_code: int | None) -> str:
    return "hook exited without a status code" if exit_code is None else f"hook exited with code {exit_code}"


def parse_pre(raw: RawRun, *, synchronous: bool = True) -> RunResult:
    """Interpret one PreToolUse run (``parse_completed`` in Codex's pre_tool_use.rs)."""
    res = RunResult(entries=list(raw.notes))
    if raw.error is not None:
        res.fail(raw.error)
    elif raw.exit_code == 0 or raw.has_value:
        obj, uni, spec, valid = _checked_object(raw, _PRE_SPECIFIC, (None, "approve", "block"))
        if not valid:
            res.fail("hook returned invalid pre-tool-use JSON output")
        elif isinstance(obj, dict):
            assert uni is not None and spec is not False
            if uni["systemMessage"] is not None:
                res.add("warning", uni["systemMessage"])
            invalid, block = _pre_decision(uni, spec, obj)
            if invalid is not None:
                res.fail(invalid)
            else:
                context = spec.get("additionalContext") if spec else None
                if context is not None:
                    res.add("context", context)
                    res.additional_contexts.append(context)
                if block is not None:
                    res.status, res.block_reason = "blocked", block
                    res.add("feedback", block)
                elif spec and spec.get("permissionDecision") == "allow":
                    res.updated_input = spec.get("updatedInput")
    elif raw.exit_code == 2 and synchronous:
        reason = _trimmed(raw.stderr)
        if reason is None:
            res.fail("PreToolUse hook exited with code 2 but did not write a blocking reason to stderr")
        else:
            res.status, res.block_reason = "blocked", reason
            res.add("feedback", reason)
    else:
        res.fail(_exit_failure(raw.exit_code))
    return res


def parse_post(raw: RawRun, *, synchronous: bool = True) -> RunResult:
    """Interpret one PostToolUse run (``parse_completed`` in Codex's post_tool_use.rs)."""
    res = RunResult(entries=list(raw.notes))
    if raw.error is not None:
        res.fail(raw.error)
    elif raw.exit_code == 0 or raw.has_value:
        obj, uni, spec, valid = _checked_object(raw, _POST_SPECIFIC, (None, "block"))
        if not valid:
            res.fail("hook returned invalid post-tool-use JSON output")
        elif isinstance(obj, dict):
            assert uni is not None and spec is not False
            _post_object(res, uni, spec, obj)
    elif raw.exit_code == 2 and synchronous:
        reason = _trimmed(raw.stderr)
        if reason is None:
            res.fail("PostToolUse hook exited with code 2 but did not write feedback to stderr")
        else:
            res.status = "blocked"  # Codex 0.169 reports the run as blocked (conformance hook_post_exit2)
            res.add("feedback", reason)
            res.feedback.append(reason)
    else:
        res.fail(_exit_failure(raw.exit_code))
    return res


def _post_object(res: RunResult, uni: dict[str, Any], spec: dict[str, Any] | None, obj: dict[str, Any]) -> None:
    invalid = None
    if uni["suppressOutput"]:
        invalid = "PostToolUse hook returned unsupported suppressOutput"
    elif spec and spec.get("updatedMCPToolOutput") is not None:
        invalid = "PostToolUse hook returned unsupported updatedMCPToolOutput"
    should_block = obj.get("decision") == "block"
    reason = obj.get("reason")
    invalid_block = None
    if should_block and _trimmed(reason) is None:
        invalid_block = "PostToolUse hook returned decision:block without a non-empty reason"
    elif not should_block and uni["continue"] and reason is not None:
        invalid_block = "PostToolUse hook returned reason without decision"
    if uni["systemMessage"] is not None:
        res.add("warning", uni["systemMessage"])
    context = spec.get("additionalContext") if spec else None
    if invalid is None and invalid_block is None and context is not None:
        res.add("context", context)
        res.additional_contexts.append(context)
    if not uni["continue"]:
        res.status, res.should_stop, res.stop_reason = "stopped", True, uni["stopReason"]
        stop_text = uni["stopReason"] or "PostToolUse hook stopped execution"
        res.add("stop", stop_text)
        res.feedback.append(_trimmed(reason) or stop_text)
    elif invalid is not None:
        res.fail(invalid)
    elif invalid_block is not None:
        res.fail(invalid_block)
    elif should_block:
        assert isinstance(reason, str)  # a block without a non-empty string reason set invalid_block above
        res.status = "blocked"
        res.add("feedback", reason)
        res.feedback.append(reason)
