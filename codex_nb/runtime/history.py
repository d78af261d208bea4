"""History pairing repair, run before every model request (spec 04 §6).

Invariant afterwards: every call item has exactly one output. A call without one
gets a synthetic ``aborted`` output right after it; outputs whose call is missing
(orphans) and duplicate outputs are dropped.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..protocol.items import CALL_ITEM_TYPES, OUTPUT_ITEM_TYPES, empty_tool_search_output

# The upstream namespace and prefix are not captured (spec 04 §6, unverified); these are ours.
_SYNTHETIC_NAMESPACE = uuid.UUID("6f0c2b9e-2f55-4d1c-9a43-2c8c0f2b7d11")


def _synthetic_output(call: dict[str, Any]) -> dict[str, Any]:
    call_id = call.get("call_id", "")
    kind = call.get("type")
    if kind == "tool_search_call":
        return empty_tool_search_output(call_id)
    out_type = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
    item: dict[str, Any] = {"type": out_type, "call_id": call_id, "output": "aborted"}
    seed = f"aborted:{call.get('id') or call_id}"
    item["id"] = str(uuid.uuid5(_SYNTHETIC_NAMESPACE, seed))
    return item


def is_code_mode_notification(item: dict[str, Any]) -> bool:
    """Code Mode ``notify(v)`` injects an extra ``custom_tool_call_output`` named ``exec``
    for a call that also gets its real output (spec 05): it is not the call's pairing."""
    return item.get("type") == "custom_tool_call_output" and item.get("name") == "exec"


def repair_history(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a repaired copy of ``items``; the input list is not modified."""
    call_ids = {i.get("call_id") for i in items if i.get("type") in CALL_ITEM_TYPES}
    answered = {i.get("call_id") for i in items
                if i.get("type") in OUTPUT_ITEM_TYPES and not is_code_mode_notification(i)}
    out: list[dict[str, Any]] = []
    seen_outputs: set[Any] = set()
    for item in items:
        kind = item.get("type")
        if kind in OUTPUT_ITEM_TYPES:
            cid = item.get("call_id")
            if cid not in call_ids:
                continue  # orphan
            if is_code_mode_notification(item):
                out.append(item)
                continue
            if cid in seen_outputs:
                continue  # duplicate
            seen_outputs.add(cid)
            out.append(item)
            continue
        out.append(item)
        if kind in CALL_ITEM_TYPES and item.get("call_id") not in answered:
            out.append(_synthetic_output(item))
    return out


def is_paired(items: list[dict[str, Any]]) -> bool:
    """True when every call has exactly one output and no output is an orphan."""
    calls = [i.get("call_id") for i in items if i.get("type") in CALL_ITEM_TYPES]
    outputs = [i.get("call_id") for i in items if i.get("type") in OUTPUT_ITEM_TYPES]
    return sorted(map(str, calls)) == sorted(map(str, outputs)) and len(set(calls)) == len(calls)
