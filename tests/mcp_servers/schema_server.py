"""A raw stdio MCP server whose tools/list is exactly a JSON file: no SDK between the file and the wire.

``python schema_server.py TOOLS.json`` serves the tools listed in the file (``[{name,
description, inputSchema}, ...]``) as they are, so a client sees schemas an SDK server would
refuse or rewrite (no ``type``, odd keywords). Every call answers the text ``ok``.
``--delay SECONDS`` (after the file) answers ``initialize`` and ``tools/list`` that much later:
a slow server, to check that the startup timeout bounds each step and not their sum.
It reads stdin line by line and exits at its end, so a client that closes it is not kept waiting."""

from __future__ import annotations

import json
import sys
import time


def _answer(request: dict, tools: list) -> dict | None:
    method = request.get("method")
    if "id" not in request:
        return None  # a notification
    if method == "initialize":
        version = (request.get("params") or {}).get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "schemas", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        tools = json.load(f)
    delay = float(sys.argv[sys.argv.index("--delay") + 1]) if "--delay" in sys.argv else 0.0
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if delay and isinstance(request, dict) and request.get("method") in ("initialize", "tools/list"):
            time.sleep(delay)  # the slow server under test, not a wait in the test
        reply = _answer(request, tools)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
