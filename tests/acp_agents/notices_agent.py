"""A scripted ACP agent that sends notices, compactions, titles and subagent updates, and answers
``session/close``, for the client's tests of those unstable updates.

Real JSON-RPC over stdio, written by hand (a malformed update must reach the client as sent). The
prompt's text is the JSON of a list of ``[session, update]`` pairs: each ``update`` is sent as a
``session/update`` of the prompt's session (``session`` null) or of the session id ``session`` (a
subagent's); then the agent says "done" and ends the prompt. ``initialize`` answers with the client
capabilities it was offered under ``_meta.offered``, and offers ``sessionCapabilities.close`` unless
started with ``--no-close``; ``--hang-close`` never answers ``session/close``. Every ``session/close``
it receives is appended to the file named by ``--log PATH`` (one session id a line).
"""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

from stdio_rpc import incoming, send


def prompt(rid: Any, session_id: str, text: str) -> None:
    for session, update in json.loads(text):
        send({"method": "session/update", "params": {"sessionId": session or session_id, "update": update}})
    done = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}}
    send({"method": "session/update", "params": {"sessionId": session_id, "update": done}})
    send({"id": rid, "result": {"stopReason": "end_turn"}})


def main() -> None:
    args = sys.argv[1:]
    log = args[args.index("--log") + 1] if "--log" in args else None
    sessions = itertools.count(1)
    for method, rid, params in incoming():
        if method == "initialize":
            offered = params.get("clientCapabilities")
            closes = {} if "--no-close" in args else {"sessionCapabilities": {"close": {}}}
            result = {
                "protocolVersion": 1,
                "agentCapabilities": closes,
                "authMethods": [],
                "_meta": {"offered": offered},
            }
            send({"id": rid, "result": result})
        elif method == "session/new":
            send({"id": rid, "result": {"sessionId": f"notices-{next(sessions)}"}})
        elif method == "session/prompt":
            text = "".join(b.get("text", "") for b in params.get("prompt", []))
            prompt(rid, params["sessionId"], text)
        elif method == "session/close":
            if log:
                with open(log, "a", encoding="utf-8") as out:
                    out.write(params["sessionId"] + "\n")
            if "--hang-close" not in args:
                send({"id": rid, "result": {}})
        elif rid is not None:
            send({"id": rid, "error": {"code": -32601, "message": f"notices_agent: no method {method}"}})


if __name__ == "__main__":
    main()
