"""MCP ``tools/call`` results and failures as the function-call outputs Codex 0.169 gives the model.

Observed with the real binary (``codex exec`` against a local Responses server):

* every output starts with ``Wall time: {secs:.4f} seconds\\nOutput:``;
* a successful result with ``structuredContent`` is ONE string: that header, a newline,
  and the structured content as compact JSON;
* anything else is a list: the header as ``input_text``, then each content block
  (``text`` -> ``input_text``, ``image`` -> ``input_image`` data URL with the model's
  image detail, embedded text resources -> ``input_text``);
* a failed call (timeout, transport closed) is that list with one text
  ``tool call error: tool call failed for `SERVER/TOOL`\\n\\nCaused by:\\n    REASON``
  (Codex appends a Rust stack backtrace of ``<unknown>`` frames; we leave it out).
"""

from __future__ import annotations

import json
from typing import Any

from ..protocol.items import OutputBody


def wall_time_header(secs: float) -> str:
    return f"Wall time: {secs:.4f} seconds\nOutput:"


def content_items(content: list[Any], *, image_detail: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text":
            items.append({"type": "input_text", "text": block.text})
        elif kind == "image":
            items.append(
                {
                    "type": "input_image",
                    "image_url": f"data:{block.mime_type};base64,{block.data}",
                    "detail": image_detail,
                }
            )
        elif kind == "resource":
            text = getattr(block.resource, "text", None)
            if text is not None:
                items.append({"type": "input_text", "text": text})
        elif kind == "resource_link":
            items.append({"type": "input_text", "text": str(getattr(block, "uri", ""))})
    return items


def call_output(result: Any, secs: float, *, image_detail: str = "original") -> tuple[OutputBody, bool]:
    """``(body, success)`` for an SDK ``CallToolResult``."""
    header = wall_time_header(secs)
    structured = getattr(result, "structured_content", None)
    if not result.is_error and structured is not None:
        return f"{header}\n{json.dumps(structured, separators=(',', ':'), ensure_ascii=False)}", True
    body = [{"type": "input_text", "text": header}, *content_items(list(result.content), image_detail=image_detail)]
    return body, not result.is_error


def failure_output(server: str, tool: str, reason: str, secs: float) -> OutputBody:
    text = f"tool call error: tool call failed for `{server}/{tool}`\n\nCaused by:\n    {reason}"
    return [{"type": "input_text", "text": wall_time_header(secs)}, {"type": "input_text", "text": text}]
