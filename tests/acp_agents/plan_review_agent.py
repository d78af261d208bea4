"""A scripted ACP agent that proposes a plan and asks to implement it, as codex-acp 2.6 does in Plan mode.

Real JSON-RPC over stdio, written by hand. A prompt ``Plan: <markdown>`` makes the agent stream the
plan as Markdown ``plan_update``s of one id (a part, then the whole), send a second plan and
remove it (``plan_removed``), then ask ``session/request_permission`` for a ``switch_mode`` call
``plan-review:<id>`` with ``rawInput.plan`` and codex-acp's two options (``implement_plan``
allow_once, ``revise_plan`` reject_once). It says the response as its message (``answer: <json>``),
then ``implementing`` if the plan was approved, and ends the prompt (``cancelled`` once the client
sent ``session/cancel``). A prompt ``File plan: <path>`` asks as Gemini CLI 0.61's exit_plan_mode
does: a call of kind ``other`` titled "Requesting plan approval for: <path>", no ``rawInput``,
options ``proceed_once`` "Allow" (allow_once) and ``cancel`` "Reject" (reject_once); the path is
whatever the prompt says (a hostile agent's). Any other prompt is said back (``heard: <text>``). ``session/load``
replays one Markdown plan of the history (``old-item``), as codex-acp replays a plan item. ``initialize``
answers with the client capabilities it was offered under ``_meta.offered``.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from stdio_rpc import incoming, request, send

_cancelled = threading.Event()
_plans = itertools.count(1)


def update(session_id: str, body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": body}})


def say(session_id: str, text: str) -> None:
    update(session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


def markdown(plan_id: str, content: str) -> dict[str, Any]:
    return {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": plan_id, "content": content}}


def ask(session_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]) -> Any:
    """Ask ``session/request_permission`` and say the client's response (or error) as the message."""
    answer = request("session/request_permission", {"sessionId": session_id, "toolCall": tool_call, "options": options})
    result = answer.get("result", answer.get("error"))
    say(session_id, f"answer: {json.dumps(result, sort_keys=True)}")
    return result


def end(rid: Any) -> None:
    """End the prompt: ``cancelled`` once the client sent ``session/cancel``."""
    send({"id": rid, "result": {"stopReason": "cancelled" if _cancelled.is_set() else "end_turn"}})


def propose(rid: Any, session_id: str, plan: str) -> None:
    item = f"item-{next(_plans)}"
    update(session_id, markdown(item, plan[: len(plan) // 2]))
    update(session_id, markdown(item, plan))
    update(session_id, markdown("scratch", "a draft the agent drops"))
    update(session_id, {"sessionUpdate": "plan_removed", "planId": "scratch"})
    tool_call = {
        "toolCallId": f"plan-review:{item}",
        "title": "Implement this plan?",
        "kind": "switch_mode",
        "status": "pending",
        "rawInput": {"plan": plan},
    }
    options = [
        {"optionId": "implement_plan", "name": "Yes, implement this plan", "kind": "allow_once"},
        {"optionId": "revise_plan", "name": "No, and tell Codex what to do differently", "kind": "reject_once"},
    ]
    result = ask(session_id, tool_call, options)
    if isinstance(result, dict) and result.get("outcome", {}).get("optionId") == "implement_plan":
        say(session_id, "\nimplementing")
    end(rid)


def ask_file(rid: Any, session_id: str, path: str) -> None:
    tool_call = {
        "toolCallId": f"exit_plan_mode__exit_plan_mode_{next(_plans)}_0",
        "title": f"Requesting plan approval for: {path}",
        "kind": "other",
        "status": "pending",
        "content": [],
        "locations": [],
    }
    options = [
        {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
    ]
    ask(session_id, tool_call, options)
    end(rid)


def prompt(rid: Any, session_id: str, text: str) -> None:
    _cancelled.clear()
    if text.startswith("File plan: "):
        ask_file(rid, session_id, text.removeprefix("File plan: "))
        return
    if text.startswith("Plan: "):
        propose(rid, session_id, text.removeprefix("Plan: "))
        return
    say(session_id, f"heard: {text}")
    send({"id": rid, "result": {"stopReason": "end_turn"}})


def main() -> None:
    sessions = itertools.count(1)
    for method, rid, params in incoming():
        if method == "initialize":
            offered = params.get("clientCapabilities")
            caps = {"loadSession": True}
            result = {"protocolVersion": 1, "agentCapabilities": caps, "authMethods": [], "_meta": {"offered": offered}}
            send({"id": rid, "result": result})
        elif method == "session/new":
            send({"id": rid, "result": {"sessionId": f"plan-{next(sessions)}"}})
        elif method == "session/load":  # the history holds a proposed plan, sent as codex-acp does
            update(params["sessionId"], markdown("old-item", "# An old plan"))
            send({"id": rid, "result": {}})
        elif method == "session/prompt":
            text = "".join(b.get("text", "") for b in params.get("prompt", []))
            threading.Thread(target=prompt, args=(rid, params["sessionId"], text), daemon=True).start()
        elif method == "session/cancel":
            _cancelled.set()
        elif rid is not None:
            send({"id": rid, "error": {"code": -32601, "message": f"plan_review_agent: no method {method}"}})


if __name__ == "__main__":
    main()
