"""Responses API items: the calls the model makes and the outputs it reads back.

Items travel as plain wire dicts in history (exactly what the model would receive);
these helpers build them in Codex's key order. ``ToolOutputBody`` models
``FunctionCallOutputPayload``: only the body is ever serialised, the success flag is
internal (it drives hooks, lifecycle and analytics, never the model).
"""

from __future__ import annotations

import uuid
from typing import Any

from .wire import dumps

ContentItem = dict[str, Any]
OutputBody = str | list[ContentItem]

CALL_ITEM_TYPES = frozenset({"function_call", "custom_tool_call", "tool_search_call", "local_shell_call"})
OUTPUT_ITEM_TYPES = frozenset(
    {"function_call_output", "custom_tool_call_output", "tool_search_output", "mcp_tool_call_output"}
)


def _call_id(call_id: str | None) -> str:
    return call_id if call_id is not None else f"call_{uuid.uuid4().hex[:24]}"


def function_call(
    name: str,
    arguments: dict[str, Any] | list[Any] | str,
    *,
    call_id: str | None = None,
    namespace: str | None = None,
) -> dict[str, Any]:
    """A model ``function_call`` item. ``arguments`` may be a dict (sent as JSON) or raw text.

    ```pycon
    >>> import codex_nb as cx
    >>> cx.function_call("update_plan", {"plan": []}, call_id="c1")
    {'type': 'function_call', 'name': 'update_plan', 'arguments': '{"plan":[]}', 'call_id': 'c1'}

    ```
    """
    item: dict[str, Any] = {"type": "function_call", "name": name}
    if namespace is not None:
        item["namespace"] = namespace
    item["arguments"] = arguments if isinstance(arguments, str) else dumps(arguments)
    item["call_id"] = _call_id(call_id)
    return item


def custom_tool_call(
    name: str, input: str, *, call_id: str | None = None, namespace: str | None = None
) -> dict[str, Any]:
    """A model ``custom_tool_call`` (freeform) item, e.g. Code Mode's ``exec``."""
    item: dict[str, Any] = {"type": "custom_tool_call", "name": name}
    if namespace is not None:
        item["namespace"] = namespace
    item["input"] = input
    item["call_id"] = _call_id(call_id)
    return item


def tool_search_call(query: str, *, limit: int | None = None, call_id: str | None = None) -> dict[str, Any]:
    """A model ``tool_search_call`` item (client execution), as Codex receives it."""
    arguments: dict[str, Any] = {"query": query}
    if limit is not None:
        arguments["limit"] = limit
    return {"type": "tool_search_call", "call_id": _call_id(call_id), "execution": "client", "arguments": arguments}


def assistant_message(text: str) -> dict[str, Any]:
    """An assistant ``message`` item with one ``output_text`` part."""
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def user_message(text: str) -> dict[str, Any]:
    """A user ``message`` item with one ``input_text`` part."""
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def developer_message(text: str) -> dict[str, Any]:
    """A developer ``message`` item (hook ``additionalContext`` lands here verbatim)."""
    return {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]}


def message_text(item: dict[str, Any]) -> str:
    """The concatenated text parts of a ``message`` item."""
    return "".join(part.get("text", "") for part in item.get("content", []) if isinstance(part, dict))


def malformed_item(item: Any) -> str | None:
    """Why a model output item does not parse as a Responses API item, or None.

    Codex deserialises each output item into ``ResponseItem``; one that does not fit
    (a ``call_id`` that is not a string, a text part that is not a string) never enters
    its history. We drop the same items, and say so.
    """
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        return "an item must be an object with a string `type`"
    kind = item["type"]
    if kind in CALL_ITEM_TYPES and kind != "local_shell_call" and not isinstance(item.get("call_id"), str):
        return f"{kind} has call_id {item.get('call_id')!r}, not a string"
    if kind == "message":
        content = item.get("content")
        if not isinstance(content, list):
            return "message content must be a list of parts"
        for index, part in enumerate(content):
            if not isinstance(part, dict):
                return f"message content part {index} is not an object"
            if "text" in part and not isinstance(part["text"], str):
                return f"message content part {index} has text {part['text']!r}, not a string"
    return None


def empty_tool_search_output(call_id: str) -> dict[str, Any]:
    return {"type": "tool_search_output", "call_id": call_id, "status": "completed", "execution": "client", "tools": []}


def body_text(body: OutputBody) -> str:
    """Text form of an output body: non-empty ``input_text`` parts joined by newlines."""
    if isinstance(body, str):
        return body
    return "\n".join(p["text"] for p in body if p.get("type") == "input_text" and p.get("text"))


def collapse_body(body: OutputBody) -> OutputBody:
    """A single ``input_text`` item collapses to a bare string, as Codex serialises it."""
    if isinstance(body, list) and len(body) == 1 and body[0].get("type") == "input_text":
        return str(body[0].get("text", ""))
    return body
