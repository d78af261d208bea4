"""Response item -> ``ToolCall`` (codex-rs/core/src/tools/router.rs), bound to one registry snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .exposure import ToolExposure
from .names import ToolName
from .payload import Payload, ToolCall
from .registry import RegisteredTool, RegistrySnapshot


@dataclass(frozen=True, slots=True)
class RoutingError:
    """An item that is a call but cannot be routed; ``item`` is its paired output."""

    item: dict[str, Any]


class ToolRouter:
    """Routes items to calls and looks tools up in ONE snapshot, never the live registry."""

    def __init__(self, snapshot: RegistrySnapshot) -> None:
        self.snapshot = snapshot

    @property
    def generation(self) -> int:
        return self.snapshot.generation

    def lookup(self, name: ToolName) -> RegisteredTool | None:
        return self.snapshot.get(name)

    def supports_parallel(self, name: ToolName) -> bool:
        return parallel_capable(self.lookup(name))

    def build_tool_call(self, item: dict[str, Any]) -> ToolCall | RoutingError | None:
        """The call an item asks for; ``None`` for non-call items (messages, reasoning...)."""
        kind = item.get("type")
        if kind not in ("function_call", "custom_tool_call", "tool_search_call"):
            return None
        call_id = item.get("call_id")
        if not isinstance(call_id, str):
            return _bad_item(kind, call_id, f"invalid call_id {call_id!r}: a call id must be a string")
        if kind == "tool_search_call":
            if item.get("execution") != "client":
                return None
            arguments = item.get("arguments")
            text = arguments if isinstance(arguments, str) else _json(arguments)
            return ToolCall(tool_name=ToolName.of("tool_search"), call_id=call_id, payload=Payload("tool_search", text))
        name = item.get("name")
        if not isinstance(name, str):  # "" is just an unknown tool: `unsupported call: ` (Codex 0.169)
            return _bad_item(kind, call_id, f"invalid tool call: the item has no tool name (got {name!r})")
        namespace = item.get("namespace")
        namespace = namespace if isinstance(namespace, str) else None
        if kind == "function_call":
            arguments = item.get("arguments", "")
            text = arguments if isinstance(arguments, str) else _json(arguments)
            return ToolCall(tool_name=ToolName.of(name, namespace), call_id=call_id, payload=Payload.function(text))
        raw_input = item.get("input", "")
        return ToolCall(
            tool_name=ToolName.of(name, namespace),
            call_id=call_id,
            payload=Payload.custom(raw_input if isinstance(raw_input, str) else _json(raw_input)),
        )


def parallel_capable(entry: RegisteredTool | None) -> bool:
    """Whether a call of ``entry`` shares the step's parallel gate (unknown tools hold it alone)."""
    return entry is not None and entry.exposure is not _HIDDEN and entry.tool.supports_parallel


_HIDDEN = ToolExposure.Hidden  # an enum member read through its class costs a lookup on every call


def _json(value: Any) -> str:
    from ..protocol.wire import dumps

    return dumps(value)


def _bad_item(kind: str, call_id: Any, text: str) -> RoutingError:
    out_type = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
    safe_id = call_id if isinstance(call_id, str) else ("" if call_id is None else str(call_id))
    return RoutingError({"type": out_type, "call_id": safe_id, "output": text})
