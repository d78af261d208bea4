"""Call payloads, the routed ``ToolCall`` and the handler's ``ToolOutput``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.items import OutputBody, body_text, collapse_body, empty_tool_search_output
from .names import ToolName

PayloadKind = Literal["function", "custom", "tool_search"]


@dataclass(frozen=True, slots=True)
class Payload:
    """``Function{arguments}``, ``Custom{input}`` or ``ToolSearch{arguments}`` (spec 00 glossary)."""

    kind: PayloadKind
    text: str

    @classmethod
    def function(cls, arguments: str) -> Payload:
        return cls("function", arguments)

    @classmethod
    def custom(cls, input: str) -> Payload:
        return cls("custom", input)


class CallSource:
    DIRECT = "direct"
    CODE_MODE = "code_mode"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A routed call: which tool, which call id, what input."""

    tool_name: ToolName
    call_id: str
    payload: Payload
    source: str = CallSource.DIRECT
    cell_id: str | None = None

    @property
    def call_item_type(self) -> str:
        return {"function": "function_call", "custom": "custom_tool_call", "tool_search": "tool_search_call"}[
            self.payload.kind
        ]


@dataclass(slots=True, kw_only=True)
class ToolOutput:
    """What a handler returns. Only ``body`` reaches the model; ``success`` is internal.

    ``code_mode_result`` is what a nested Code Mode call resolves to when it differs
    from the body (``update_plan`` resolves to ``{}``).
    """

    body: OutputBody
    success: bool | None = True
    code_mode_result: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return body_text(self.body)

    def to_response_item(self, call: ToolCall) -> dict[str, Any]:
        body = collapse_body(self.body)
        if call.payload.kind == "tool_search":
            item = empty_tool_search_output(call.call_id)
            item["tools"] = list(self.extra.get("tool_search_tools", []))
            return item
        if call.payload.kind == "custom":
            return {"type": "custom_tool_call_output", "call_id": call.call_id, "output": body}
        return {"type": "function_call_output", "call_id": call.call_id, "output": body}
