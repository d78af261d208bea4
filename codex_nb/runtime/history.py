"""History pairing repair, run before every model request, because the Responses API
rejects a call without its output (codex-rs/core/src/context_manager/normalize.rs).

Invariant afterwards: every call item has exactly one output. A call without one
gets a synthetic ``aborted`` output right after it; outputs whose call is missing
(orphans) and duplicate outputs are dropped.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from ..protocol.items import CALL_ITEM_TYPES, OUTPUT_ITEM_TYPES, empty_tool_search_output

# Codex's UUID namespace and prefix for synthetic ids are unknown to us; these are ours.
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
    for a call that also gets its real output: it is not the call's pairing."""
    return item.get("type") == "custom_tool_call_output" and item.get("name") == "exec"


def repair_history(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a repaired copy of ``items``; the input list is not modified.

    Pairing counts: a model may reuse a call id (Codex answers each of three calls with
    the same id), so an id with three calls keeps three outputs.
    """
    calls = Counter(i.get("call_id") for i in items if i.get("type") in CALL_ITEM_TYPES)
    answered = Counter(
        i.get("call_id") for i in items if i.get("type") in OUTPUT_ITEM_TYPES and not is_code_mode_notification(i)
    )
    out: list[dict[str, Any]] = []
    kept: Counter[Any] = Counter()
    seen_calls: Counter[Any] = Counter()
    for item in items:
        kind = item.get("type")
        if kind in OUTPUT_ITEM_TYPES:
            cid = item.get("call_id")
            if cid not in calls:
                continue  # orphan
            if is_code_mode_notification(item):
                out.append(item)
                continue
            if kept[cid] >= calls[cid]:
                continue  # duplicate
            kept[cid] += 1
            out.append(item)
            continue
        out.append(item)
        if kind in CALL_ITEM_TYPES:
            cid = item.get("call_id")
            seen_calls[cid] += 1
            if seen_calls[cid] > answered[cid]:
                out.append(_synthetic_output(item))
    return out


def is_paired(items: list[dict[str, Any]]) -> bool:
    """True when every call has exactly one output and no output is an orphan."""
    calls = Counter(str(i.get("call_id")) for i in items if i.get("type") in CALL_ITEM_TYPES)
    outputs = Counter(
        str(i.get("call_id")) for i in items if i.get("type") in OUTPUT_ITEM_TYPES and not is_code_mode_notification(i)
    )
    return calls == outputs


class PairingTracker:
    """Knows, in time proportional to the *new* items, whether a history is already paired.

    Repairing the whole history before every request made an N-step turn O(N²). The
    tracker scans each item once; while every call has exactly one output and no
    output is an orphan or duplicate, the request can use the history as it is, and the
    full ``repair_history`` runs only when something is actually unpaired.
    """

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, history: list[dict[str, Any]] | None) -> None:
        self._history = history
        self._cursor = 0
        self._calls: set[Any] = set()
        self._open: dict[Any, int] = {}  # call id -> calls still without an output (only ids with some)
        self._broken = False

    def is_paired(self, history: list[dict[str, Any]]) -> bool:
        if history is not self._history or len(history) < self._cursor:
            self._reset(history)
        calls, waiting = self._calls, self._open
        # One pass over the items added since the last request (a step adds two to a long
        # list), inline: this runs before every request.
        for index in range(self._cursor, len(history)):
            item = history[index]
            kind = item.get("type")
            if kind in CALL_ITEM_TYPES:
                call_id = item.get("call_id")
                calls.add(call_id)
                waiting[call_id] = waiting.get(call_id, 0) + 1
            elif kind in OUTPUT_ITEM_TYPES:
                call_id = item.get("call_id")
                if kind == "custom_tool_call_output" and is_code_mode_notification(item):
                    if call_id not in calls:
                        self._broken = True  # a notification for a call we never saw
                    continue
                left = waiting.get(call_id, 0)
                if left <= 0:
                    self._broken = True  # orphan or duplicate (an output before its call is an orphan too)
                elif left == 1:
                    del waiting[call_id]  # answered: an empty dict means "paired", checked in O(1)
                else:
                    waiting[call_id] = left - 1
        self._cursor = len(history)
        return not self._broken and not waiting


def repaired(history: list[dict[str, Any]], tracker: PairingTracker) -> list[dict[str, Any]]:
    """The items to send: ``history`` itself if it is paired (no copy: a long turn must not
    copy its whole history every step), else its repair (a new list)."""
    if tracker.is_paired(history):
        return history
    return repair_history(history)
