"""Call payloads, the routed ``ToolCall`` and the handler's ``ToolOutput``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.items import OutputBody, body_text, collapse_body, empty_tool_search_output
from .names import ToolName

PayloadKind = Literal["function", "custom", "tool_search"]


@dataclass(frozen=True, slots=True)
class Payload:
    """``Function{arguments}``, ``Custom{input}`` or ``ToolSearch{arguments}``: the three kinds of Codex call input."""

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
    keep_items: bool = False
    """Send a one-``input_text`` body as a list, as Codex does for content-item outputs (``web.run``)."""

    @property
    def text(self) -> str:
        """The body as text: the body itself when it is a string, else its non-empty ``input_text``
        parts joined by newlines (images are left out)."""
        return body_text(self.body)

    def to_response_item(self, call: ToolCall) -> dict[str, Any]:
        """The output item that answers ``call`` in the conversation: ``function_call_output`` or
        ``custom_tool_call_output`` (a one-``input_text`` body becomes a bare string unless
        ``keep_items``), or a ``tool_search_output`` listing the tools found."""
        body = self.body if self.keep_items else collapse_body(self.body)
        if call.payload.kind == "tool_search":
            item = empty_tool_search_output(call.call_id)
            item["tools"] = list(self.extra.get("tool_search_tools", []))
            return item
        if call.payload.kind == "custom":
            return {"type": "custom_tool_call_output", "call_id": call.call_id, "output": body}
        return {"type": "function_call_output", "call_id": call.call_id, "output": body}
