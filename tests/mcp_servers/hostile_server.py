"""A hostile MCP server speaking raw JSON-RPC over stdio (no SDK, so it can send what the SDK would refuse).

One request at a time, in order: everything a handler writes reaches the client before
the next request is read, which makes the tests' counts exact. Modes (argv):

- ``--bad-tools``: good tools next to tools that must each be skipped on their own: a
  recursive ``$ref``, a malformed ``anyOf`` / ``$ref``, a name listed twice, two names
  equal after sanitising, a name over 128 characters, an empty name, a huge
  description or title, a schema nested too deep or too large.
- ``--many N``: N tools in pages of 500.
- ``--endless-pages``: every page has one tool and a fresh ``nextCursor``.
- ``--names``: the names Codex has to shorten and de-duplicate (for the comparison with
  the Codex binary): long names, a name listed twice, names that sanitise alike.
- ``--long-instructions``: ``instructions`` of 13,200 bytes (Codex cuts a namespace
  description).

Tools that always exist: ``echo`` (returns its ``text``), ``storm`` (sends ``count``
``notifications/tools/list_changed`` before it answers) and ``stats`` (how many
``tools/list`` requests the server has answered).
"""

from __future__ import annotations

import json
import sys

LIST_CALLS = 0


def tool(name: str, description: str = "A tool.", schema: object = None) -> dict:
    return {
        "name": name,
        "description": description,
        "inputSchema": schema if schema is not None else {"type": "object", "properties": {}},
    }


ALWAYS = [
    tool(
        "echo",
        "Echo the text back.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    tool(
        "storm",
        "Send many tools/list_changed notifications.",
        {"type": "object", "properties": {"count": {"type": "integer"}}},
    ),
    tool("stats", "How many tools/list requests were answered."),
]


def nested(depth: int) -> dict:
    """Schema levels without many JSON levels: the SDK's JSON parser refuses a message nested
    past its recursion limit, and then drops the whole response."""
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"x": schema}}


def bad_tools() -> list[dict]:
    laughs = {
        f"d{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"}, "b": {"$ref": f"#/$defs/d{i + 1}"}},
        }
        for i in range(30)
    }
    laughs["d30"] = {"type": "string"}
    return [
        tool(
            "recursive_ref",
            "Recursive.",
            {
                "type": "object",
                "properties": {"node": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
            },
        ),
        tool("bad_anyof", "Bad anyOf.", {"type": "object", "properties": {"v": {"anyOf": [1, 2]}}}),
        tool("anyof_not_list", "anyOf is a string.", {"type": "object", "properties": {"v": {"anyOf": "string"}}}),
        tool("bad_ref", "Bad $ref.", {"type": "object", "properties": {"v": {"$ref": 5}}}),
        tool("dangling_ref", "Dangling $ref.", {"type": "object", "properties": {"v": {"$ref": "#/$defs/Nope"}}}),
        tool("twice", "First of a name listed twice."),
        tool("twice", "Second of a name listed twice."),
        tool("a.b", "Sanitises to a_b."),
        tool("a_b", "Already a_b."),
        tool("x" * 200, "A name of 200 characters."),
        tool("", "An empty name."),
        tool("wordy", "w" * 200_000),
        {**tool("titled", "A huge title."), "title": "T" * 100_000},
        tool("deep", "Nested 90 levels.", nested(90)),
        tool(
            "laughs",
            "Exponential $refs.",
            {"type": "object", "properties": {"r": {"$ref": "#/$defs/d0"}}, "$defs": laughs},
        ),
    ]


def name_tools() -> list[dict]:
    return [
        tool("save_a_note_with_a_title_and_a_body_and_some_tags_attached", "Long one: save with tags."),
        tool("dup", "First dup entry."),
        tool("dup", "Second dup entry."),
        tool("has-dash", "Dash tool."),
        tool("has.dot", "Dot tool."),
        tool("has_dot", "Underscore tool."),
        *[tool("L" * n, f"long tool {n}") for n in (80, 116, 117, 300)],
    ]


def listing(argv: list[str]) -> list[dict]:
    extra: list[dict] = []
    if "--bad-tools" in argv:
        extra = bad_tools()
    if "--names" in argv:
        extra = name_tools()
    if "--many" in argv:
        extra = [tool(f"t{i}") for i in range(int(argv[argv.index("--many") + 1]))]
    return ALWAYS + extra


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")


def tools_page(argv: list[str], cursor: str | None) -> dict:
    global LIST_CALLS
    LIST_CALLS += 1
    if "--endless-pages" in argv:
        n = int(cursor or "0")
        return {"tools": ALWAYS if n == 0 else [tool(f"page{n}")], "nextCursor": str(n + 1)}
    tools = listing(argv)
    start = int(cursor or "0")
    page = tools[start : start + 500]
    result: dict = {"tools": page}
    if start + 500 < len(tools):
        result["nextCursor"] = str(start + 500)
    return result


def call(name: str, args: dict) -> dict:
    if name == "storm":
        for _ in range(int(args.get("count", 0))):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text = "stormed"
    elif name == "stats":
        text = str(LIST_CALLS)
    else:
        text = str(args.get("text", name))
    return {"content": [{"type": "text", "text": text}], "isError": False}


def main() -> None:
    argv = sys.argv[1:]
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
        if ident is None:
            continue  # a notification (initialized, cancelled)
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1"},
            }
            if "--long-instructions" in argv:
                result["instructions"] = "Long instructions, é. " * int(argv[argv.index("--long-instructions") + 1])
        elif method == "tools/list":
            result = tools_page(argv, params.get("cursor"))
        elif method == "tools/call":
            result = call(params.get("name", ""), params.get("arguments") or {})
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}})
            sys.stdout.flush()
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})
        sys.stdout.flush()


if __name__ == "__main__":
    main()
