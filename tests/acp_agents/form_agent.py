"""A scripted ACP agent that asks form elicitations, for the client's form-question tests.

Real JSON-RPC over stdio, written by hand (a hostile agent's schema must reach the client as
sent). The prompt's text is the JSON of an ``elicitation/create`` request's params without
``sessionId`` (``{"message": ..., "mode": "form", "requestedSchema": {...}, "_meta": ...}``); the
agent sends it, says the response as its message (``answer: <json>``) and ends the prompt
(``cancelled`` once the client sent ``session/cancel``). ``initialize`` answers with the
client capabilities it was offered under ``_meta.offered``.
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

from stdio_rpc import incoming, request, send

_cancelled = threading.Event()


def prompt(rid: Any, session_id: str, text: str) -> None:
    _cancelled.clear()
    answer = request("elicitation/create", {"sessionId": session_id, **json.loads(text)})
    said = json.dumps(answer.get("result", answer.get("error")), sort_keys=True)
    content = {"type": "text", "text": f"answer: {said}"}
    update = {"sessionUpdate": "agent_message_chunk", "content": content}
    send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})
    send({"id": rid, "result": {"stopReason": "cancelled" if _cancelled.is_set() else "end_turn"}})


def main() -> None:
    sessions = itertools.count(1)
    for method, rid, params in incoming():
        if method == "initialize":
            offered = params.get("clientCapabilities")
            result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": [], "_meta": {"offered": offered}}
            send({"id": rid, "result": result})
        elif method == "session/new":
            send({"id": rid, "result": {"sessionId": f"form-{next(sessions)}"}})
        elif method == "session/prompt":
            text = "".join(b.get("text", "") for b in params.get("prompt", []))
            threading.Thread(target=prompt, args=(rid, params["sessionId"], text), daemon=True).start()
        elif method == "session/cancel":
            _cancelled.set()
        elif rid is not None:
            send({"id": rid, "error": {"code": -32601, "message": f"form_agent: no method {method}"}})


if __name__ == "__main__":
    main()
