"""Call payloads, the routed ``ToolCall`` and the handler's ``ToolOutput``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .._records import record
from ..protocol.items import OutputBody, body_text, collapse_body, empty_tool_search_output
from ..protocol._fast import slot_setters
from .names import ToolName

PayloadKind = Literal["function", "custom", "tool_search"]


# Every call routes into a Payload and a ToolCall. Both stay frozen, but their __init__ is
# written out: the one dataclass generates sets each field through object.__setattr__, which
# made the pair cost about a quarter of parsing a small plan; a slot's own setter costs less
# (protocol._fast.slot_setters).
# tests/unit/tools/test_tool_call_init.py holds both equal to what dataclass would build.


@dataclass(frozen=True, slots=True, init=False)
class Payload:
    """``Function{arguments}``, ``Custom{input}`` or ``ToolSearch{arguments}``: the three kinds of Codex call input."""

    kind: PayloadKind
    text: str

    def __init__(self, kind: PayloadKind, text: str) -> None:
        _SET_KIND(self, kind)
        _SET_TEXT(self, text)

    @classmethod
    def function(cls, arguments: str) -> Payload:
        return cls("function", arguments)

    @classmethod
    def custom(cls, input: str) -> Payload:
        return cls("custom", input)


class CallSource:
    DIRECT = "direct"
    CODE_MODE = "code_mode"


@dataclass(frozen=True, slots=True, kw_only=True, init=False)
class ToolCall:
    """A routed call: which tool, which call id, what input."""

    tool_name: ToolName
    call_id: str
    payload: Payload
    source: str = CallSource.DIRECT
    cell_id: str | None = None

    def __init__(
        self,
        *,
        tool_name: ToolName,
        call_id: str,
        payload: Payload,
        source: str = CallSource.DIRECT,
        cell_id: str | None = None,
    ) -> None:
        _SET_TOOL_NAME(self, tool_name)
        _SET_CALL_ID(self, call_id)
        _SET_PAYLOAD(self, payload)
        _SET_SOURCE(self, source)
        _SET_CELL_ID(self, cell_id)


_SET_KIND, _SET_TEXT = slot_setters(Payload, "kind", "text")
_SET_TOOL_NAME, _SET_CALL_ID, _SET_PAYLOAD, _SET_SOURCE, _SET_CELL_ID = slot_setters(
    ToolCall, "tool_name", "call_id", "payload", "source", "cell_id"
)


@record(slots=True, kw_only=True)
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
