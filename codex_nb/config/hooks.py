"""Hook configuration: ``hooks.json`` and ``[hooks]`` TOML tables, the two forms a Codex config layer declares hooks in.

Both shapes parse into the same ``HookSpec`` list. Unknown keys are rejected with a
``HookError`` that names the key, where it is and what is allowed; so is a matcher regex
that does not compile. ``prompt``, ``agent`` and ``mcp_tool`` handlers parse but are
skipped with a warning (codex_nb has no prompt runner and no MCP client).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from .._files import FileRefused, check_name, io_error_text
from .._records import record
from ..errors import HookError
from .files import read_text_file
from .hook_matchers import Matcher

EVENT_NAMES = (
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
)
DEFAULT_TIMEOUT_SEC = 600
DEFAULT_OUTPUT_CAP = 1 << 20
"""Bytes of a command hook's stdout/stderr kept in memory (the rest spills to a file)."""
DEFAULT_ADDITIONAL_CONTEXT_LIMIT = 2500
OnError = Literal["allow", "block"]
HookSource = Literal["system", "user", "project", "session_flags"]
"""Codex's hook ``source``: the config layer a hook was declared in (``session_flags`` for hooks given in code)."""

_DOC_KEYS = frozenset({"description", "hooks"})
_GROUP_KEYS = frozenset({"matcher", "hooks"})
_HANDLER_KEYS = {
    "command": frozenset(
        {"type", "command", "timeout", "async", "statusMessage", "commandWindows", "additionalContextLimit", "on_error"}
    ),
    "mcp_tool": frozenset({"type", "server", "tool", "input", "timeout", "statusMessage", "on_error"}),
    "prompt": frozenset({"type", "prompt", "model", "timeout", "statusMessage"}),
    "agent": frozenset({"type", "prompt", "model", "timeout", "statusMessage"}),
}
_STATE_KEYS = frozenset({"trusted_hash", "enabled"})


def event_label(event_name: str) -> str:
    """``PreToolUse`` -> ``pre_tool_use`` (the label used in state keys and hashes)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event_name).lower()


@record(frozen=True, kw_only=True)
class CommandHandler:
    """A ``type = "command"`` handler."""

    command: str
    timeout: int = DEFAULT_TIMEOUT_SEC
    is_async: bool = False
    status_message: str | None = None
    command_windows: str | None = None
    additional_context_limit: int = DEFAULT_ADDITIONAL_CONTEXT_LIMIT
    on_error: OnError = "allow"
    handler_type: Literal["command"] = "command"

    def identity(self) -> dict[str, Any]:
        """The normalized handler used for the trust hash (defaults filled in)."""
        out: dict[str, Any] = {
            "type": "command",
            "command": self.command,
            "timeout": self.timeout,
            "async": self.is_async,
            "additionalContextLimit": self.additional_context_limit,
            "on_error": self.on_error,
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.command_windows is not None:
            out["commandWindows"] = self.command_windows
        return out


@record(frozen=True, kw_only=True)
class PythonHandler:
    """An in-process notebook hook: a sync or async callable."""

    fn: Callable[..., Any]
    name: str
    timeout: float = DEFAULT_TIMEOUT_SEC
    status_message: str | None = None
    additional_context_limit: int = DEFAULT_ADDITIONAL_CONTEXT_LIMIT
    on_error: OnError = "allow"
    is_async: bool = False
    handler_type: Literal["python"] = "python"

    def identity(self) -> dict[str, Any]:
        """What names this hook in its ``trust_hash``: its ``name`` (``module.qualname``), timeout and
        ``on_error``. A Python hook is trusted as code; the hash only tells hooks apart."""
        return {"type": "python", "name": self.name, "timeout": self.timeout, "on_error": self.on_error}


@record(frozen=True, kw_only=True)
class SkippedHandler:
    """A handler type codex_nb parses but does not run (``prompt``, ``agent``, ``mcp_tool``)."""

    raw: Mapping[str, Any]
    reason: str
    handler_type: str = "skipped"
    is_async: bool = False

    def identity(self) -> dict[str, Any]:
        return dict(self.raw)


Handler = CommandHandler | PythonHandler | SkippedHandler


@record(frozen=True, kw_only=True)
class HookSpec:
    """One configured handler with where it came from."""

    event_name: str
    matcher: Matcher
    handler: Handler
    source_path: str
    source: HookSource = "session_flags"
    needs_trust: bool = False
    """True for hooks discovered from files: they run only once trusted."""
    group_index: int = 0
    handler_index: int = 0

    @property
    def key(self) -> str:
        """``{source_path}:{event_label}:{group_index}:{handler_index}`` (the state key)."""
        return f"{self.source_path}:{event_label(self.event_name)}:{self.group_index}:{self.handler_index}"

    @property
    def trust_hash(self) -> str:
        """sha256 of the canonical JSON of ``{event_name, matcher, hooks: [handler]}``."""
        identity: dict[str, Any] = {"event_name": event_label(self.event_name), "hooks": [self.handler.identity()]}
        if self.matcher.pattern is not None:
            identity["matcher"] = self.matcher.pattern
        canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@record(frozen=True, kw_only=True)
class HookStateEntry:
    """``[hooks.state."<key>"]``: ``trusted_hash`` and ``enabled``."""

    trusted_hash: str | None = None
    enabled: bool = True


@record(frozen=True, kw_only=True)
class HooksConfig:
    """Parsed hooks of one source plus any ``[hooks.state]`` entries."""

    specs: tuple[HookSpec, ...] = ()
    state: Mapping[str, HookStateEntry] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def merged(self, other: HooksConfig) -> HooksConfig:
        """A new config with ``other``'s hooks after these (configured order), both ``[hooks.state]``
        tables (``other``'s entry wins for a key) and both warning lists: how the hooks of several
        files and config layers add up."""
        return HooksConfig(
            specs=self.specs + other.specs, state={**self.state, **other.state}, warnings=self.warnings + other.warnings
        )


# -- parsing ----------------------------------------------------------------------------


def _check_keys(obj: Any, allowed: frozenset[str], where: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise HookError(f"{where}: expected a table/object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise HookError(f"{where}: unknown key {unknown[0]!r}; allowed keys: {', '.join(sorted(allowed))}")
    return obj


def _typed(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = None) -> Any:
    value = obj.get(key, default)
    if value is None or value is default:
        return value
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise HookError(f"{where}: {key!r} must be {names}, got {value!r}")
    return value


def _parse_handler(raw: Any, where: str) -> Handler:
    if not isinstance(raw, Mapping):
        raise HookError(f"{where}: expected a handler object, got {type(raw).__name__}")
    kind = raw.get("type")
    if kind not in _HANDLER_KEYS:
        raise HookError(f"{where}: 'type' must be one of command, mcp_tool, prompt, agent; got {kind!r}")
    _check_keys(raw, _HANDLER_KEYS[kind], where)
    timeout = _typed(raw, "timeout", int, where)
    if kind != "command":
        reason = (
            f"{kind} hooks are not supported yet"
            if kind in ("prompt", "agent")
            else "mcp_tool hooks are not supported by codex_nb (no MCP client)"
        )
        return SkippedHandler(raw=dict(raw), reason=reason)
    command = _typed(raw, "command", str, where)
    if not command:
        raise HookError(f"{where}: a command hook needs a non-empty 'command' string")
    on_error = raw.get("on_error", "allow")
    if on_error not in ("allow", "block"):
        raise HookError(f'{where}: \'on_error\' must be "allow" or "block", got {on_error!r}')
    limit = _typed(raw, "additionalContextLimit", int, where)
    return CommandHandler(
        command=command,
        timeout=max(1, DEFAULT_TIMEOUT_SEC if timeout is None else timeout),
        is_async=bool(_typed(raw, "async", bool, where)),
        status_message=_typed(raw, "statusMessage", str, where),
        command_windows=_typed(raw, "commandWindows", str, where),
        additional_context_limit=DEFAULT_ADDITIONAL_CONTEXT_LIMIT if limit is None else limit,
        on_error=on_error,
    )


def compile_matcher(pattern: Any, where: str) -> Matcher:
    """Compile a matcher or raise a ``HookError`` naming the hook and the fix."""
    if pattern is not None and not isinstance(pattern, str):
        raise HookError(f"{where}: 'matcher' must be a string, got {pattern!r}")
    try:
        return Matcher(pattern)
    except re.error as err:
        raise HookError(
            f"{where}: matcher {pattern!r} is not a valid regular expression ({err}). Fix the matcher: use an "
            "exact tool name such as 'update_plan', a '|' list such as 'Bash|apply_patch', '*' for every "
            "tool, or a regular expression that compiles with Python's re module."
        ) from None


def parse_hooks_table(
    table: Mapping[str, Any],
    *,
    source_path: str,
    from_file: bool,
    allow_state: bool = True,
    source: HookSource | None = None,
) -> HooksConfig:
    """Parse the mapping of event name -> groups (the ``hooks`` value of either shape)."""
    allowed = frozenset(EVENT_NAMES) | ({"state"} if allow_state else frozenset())
    _check_keys(table, allowed, f"{source_path}: hooks")
    specs: list[HookSpec] = []
    warnings: list[str] = []
    for event_name in table:
        if event_name == "state":
            continue
        groups = table[event_name]
        if not isinstance(groups, list):
            raise HookError(f"{source_path}: hooks.{event_name} must be a list of matcher groups")
        for gi, group in enumerate(groups):
            where = f"{source_path}: hooks.{event_name}[{gi}]"
            _check_keys(group, _GROUP_KEYS, where)
            matcher = compile_matcher(group.get("matcher"), where)
            handlers = group.get("hooks", [])
            if not isinstance(handlers, list):
                raise HookError(f"{where}: 'hooks' must be a list of handlers")
            for hi, raw in enumerate(handlers):
                handler = _parse_handler(raw, f"{where}.hooks[{hi}]")
                spec = HookSpec(
                    event_name=event_name,
                    matcher=matcher,
                    handler=handler,
                    source_path=source_path,
                    source=source if source is not None else ("user" if from_file else "session_flags"),
                    needs_trust=from_file,
                    group_index=gi,
                    handler_index=hi,
                )
                if isinstance(handler, SkippedHandler):
                    warnings.append(f"{spec.key}: {handler.reason}; skipped")
                specs.append(spec)
    state = _parse_state(table.get("state", {}), source_path) if allow_state else {}
    return HooksConfig(specs=tuple(specs), state=state, warnings=tuple(warnings))


def _parse_state(raw: Any, source_path: str) -> dict[str, HookStateEntry]:
    if not isinstance(raw, Mapping):
        raise HookError(f"{source_path}: hooks.state must be a table of key -> {{trusted_hash, enabled}}")
    out: dict[str, HookStateEntry] = {}
    for key, entry in raw.items():
        where = f"{source_path}: hooks.state.{json.dumps(key)}"
        _check_keys(entry, _STATE_KEYS, where)
        enabled = _typed(entry, "enabled", bool, where)
        out[key] = HookStateEntry(
            trusted_hash=_typed(entry, "trusted_hash", str, where), enabled=True if enabled is None else enabled
        )
    return out


def parse_hooks_json(
    text: str, *, source_path: str, from_file: bool = True, source: HookSource | None = None
) -> HooksConfig:
    """Parse a ``hooks.json`` document (``{"description"?, "hooks": {...}}``)."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise HookError(f"{source_path}: not valid JSON ({err})") from None
    _check_keys(doc, _DOC_KEYS, source_path)
    return parse_hooks_table(
        doc.get("hooks", {}), source_path=source_path, from_file=from_file, allow_state=False, source=source
    )


def parse_hooks_toml(text: str, *, source_path: str = "<config.toml>", from_file: bool = False) -> HooksConfig:
    """Parse the ``[hooks]`` table of a config TOML document (absent table: no hooks)."""
    import tomllib  # only TOML users pay for the parser

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise HookError(f"{source_path}: not valid TOML ({err})") from None
    return parse_hooks_table(doc.get("hooks", {}), source_path=source_path, from_file=from_file)


def load_hooks_path(path: str | Path) -> HooksConfig:
    """Load hooks discovered on disk (they need trust): a ``hooks.json``, a ``config.toml``,
    or a config layer directory holding either or both. A file is read through the bounded
    reader: a FIFO, a device, a binary or a huge file is refused unread, with the reason."""
    try:
        check_name(str(path))
        p = Path(path).expanduser().resolve()
    except FileRefused as refused:
        raise HookError(f"cannot open the hooks file {path!r}: {refused.reason}") from None
    except OSError as err:
        raise HookError(f"cannot open the hooks file {path}: {io_error_text(err)}") from None
    except RuntimeError:  # a symbolic-link loop, as Python before 3.13 reports it
        loop = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        raise HookError(f"cannot open the hooks file {path}: {io_error_text(loop)}") from None
    if p.is_dir():
        # exists(), not is_file(): a FIFO or device named hooks.json is refused with its reason, not skipped
        json_path, toml_path = p / "hooks.json", p / "config.toml"
        out = HooksConfig()
        if json_path.exists():
            out = out.merged(load_hooks_path(json_path))
        if toml_path.exists():
            layer = load_hooks_path(toml_path)
            if json_path.exists() and layer.specs:
                out = out.merged(
                    HooksConfig(
                        warnings=(
                            f"loading hooks from both {json_path} and {toml_path}; prefer a single representation "
                            "for this layer",
                        )
                    )
                )
            out = out.merged(layer)
        return out
    if not p.exists():
        raise HookError(f"hooks file {p} does not exist; pass a hooks.json, a config.toml or a layer directory")
    text = read_text_file(p, what="hooks file", error=HookError)
    if p.suffix == ".toml":
        return parse_hooks_toml(text, source_path=str(p), from_file=True)
    return parse_hooks_json(text, source_path=str(p))
