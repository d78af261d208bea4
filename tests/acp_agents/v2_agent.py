"""A scripted ACP agent that speaks the v2 draft's prompt lifecycle, for the client's v2 tests.

Real JSON-RPC over stdio, written by hand: the SDK's agent side cannot send a prompt response
without a ``stopReason`` nor a ``state_update`` (its schema is v1). Only the agent's choices are
scripted, by the prompt text; each prompt is acknowledged at once (``{"messageId": "u1"}``) and ends with an idle
``state_update`` unless said otherwise:

- ``chunks``: message ``m1`` in chunks ``Hel`` / ``lo`` with a tool call between them, then
  message ``m2`` (``Bye``);
- ``whole``: message ``m1`` chunked as ``draft``, then the whole ``agent_message`` ``m1`` ``Fin`` and a
  chunk ``al`` of ``m1``;
- ``error``: idle with ``stopReason`` ``error`` and an ``error`` object;
- ``idle-first``: sends idle before the acknowledgement;
- ``never``: starts a tool call and never goes idle, ignoring ``session/cancel``;
- ``elicit``: a URL ``elicitation/create`` (id ``e1``); once the client sends the extension
  notification ``_v2/complete`` it sends ``elicitation/complete`` for ``e1``; then says what the
  elicitation's response was;
- anything else: ``echo: <text>``.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from stdio_rpc import incoming, request, send

_complete_asked = threading.Event()


def update(session_id: str, body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": body}})


def chunk(session_id: str, text: str, message_id: str) -> None:
    content = {"type": "text", "text": text}
    update(session_id, {"sessionUpdate": "agent_message_chunk", "content": content, "messageId": message_id})


def idle(session_id: str, reason: str = "end_turn") -> None:
    update(session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": reason})


def prompt(rid: Any, session_id: str, text: str) -> None:
    if text == "idle-first":
        idle(session_id)
        send({"id": rid, "result": {"messageId": "u1"}})
        return
    send({"id": rid, "result": {"messageId": "u1"}})  # v2: accepted, not finished
    if text == "chunks":
        chunk(session_id, "Hel", "m1")
        update(session_id, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "look", "status": "completed"})
        chunk(session_id, "lo", "m1")
        chunk(session_id, "Bye", "m2")
    elif text == "whole":
        chunk(session_id, "draft", "m1")
        whole = {"sessionUpdate": "agent_message", "messageId": "m1", "content": [{"type": "text", "text": "Fin"}]}
        update(session_id, whole)
        chunk(session_id, "al", "m1")  # a later chunk of the same message appends
    elif text == "error":
        error = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error"}
        update(session_id, {**error, "error": {"code": -32603, "message": "the model is unavailable"}})
        return
    elif text == "never":
        update(
            session_id, {"sessionUpdate": "tool_call", "toolCallId": "t9", "title": "forever", "status": "in_progress"}
        )
        return
    elif text == "elicit":
        done = threading.Thread(target=complete_when_asked, args=("e1",), daemon=True)
        done.start()
        params = {
            "sessionId": session_id,
            "mode": "url",
            "elicitationId": "e1",
            "url": "https://example.invalid/login",
            "message": "Sign in to the service",
        }
        answer = request("elicitation/create", params)
        chunk(session_id, f"elicitation: {json.dumps(answer.get('result', answer.get('error')))}", "m1")
    else:
        chunk(session_id, f"echo: {text}", "m1")
    idle(session_id)


def complete_when_asked(elicitation_id: str) -> None:
    _complete_asked.wait()
    send({"method": "elicitation/complete", "params": {"elicitationId": elicitation_id}})


def main() -> None:
    sessions = itertools.count(1)
    for method, rid, params in incoming():
        if method == "initialize":
            send({"id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method == "session/new":
            send({"id": rid, "result": {"sessionId": f"v2-{next(sessions)}"}})
        elif method == "session/prompt":
            text = "".join(b.get("text", "") for b in params.get("prompt", []))
            threading.Thread(target=prompt, args=(rid, params["sessionId"], text), daemon=True).start()
        elif method == "_v2/complete":
            _complete_asked.set()
        elif method == "session/cancel":
            pass  # "never" ignores it; the others have gone idle already
        elif rid is not None:
            send({"id": rid, "error": {"code": -32601, "message": f"v2_agent: no method {method}"}})


if __name__ == "__main__":
    main()
