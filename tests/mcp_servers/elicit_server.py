"""An MCP server (official SDK) whose tools ask the client through elicitations, for tests
and the asking-the-user notebook.

Run as ``python elicit_server.py`` (stdio). Tools:

* ``sign_up``: a form elicitation with every primitive field type (string with format,
  integer with bounds, enum, boolean, multi-select); returns what the client answered.
* ``log_in``: a URL elicitation; returns the action.
* ``bad_form``: a form whose ``address`` field is an object (not a primitive): a client
  must decline it, not show half of it.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("forms", instructions="Asks the user through elicitations.")

SIGN_UP = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "title": "Email", "format": "email"},
        "age": {"type": "integer", "title": "Age", "minimum": 13, "maximum": 130},
        "plan": {"type": "string", "title": "Plan", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
        "newsletter": {"type": "boolean", "title": "Newsletter", "default": False},
        "topics": {
            "type": "array",
            "title": "Topics",
            "items": {"type": "string", "enum": ["python", "rust"]},
            "maxItems": 2,
        },
    },
    "required": ["email", "plan"],
}

BAD = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "address": {"type": "object", "properties": {"street": {"type": "string"}}},
    },
}


def _result(answer) -> str:  # type: ignore[no-untyped-def]
    return json.dumps({"action": answer.action, "content": answer.content}, sort_keys=True)


@server.tool(description="Sign the user up: asks for their details with a form.")
async def sign_up(ctx: Context) -> str:
    answer = await ctx.request_context.session.elicit_form(
        "Sign up for the newsletter service", requested_schema=SIGN_UP, related_request_id=ctx.request_id
    )
    return _result(answer)


@server.tool(description="Log the user in: asks them to visit a login page.")
async def log_in(ctx: Context) -> str:
    answer = await ctx.request_context.session.elicit_url(
        "Log in to the example service",
        url="https://login.example.com/authorize?client=codex_nb",
        elicitation_id="login-1",
        related_request_id=ctx.request_id,
    )
    return _result(answer)


@server.tool(description="Asks with a form codex_nb cannot show (a nested object field).")
async def bad_form(ctx: Context) -> str:
    answer = await ctx.request_context.session.elicit_form(
        "Where do you live?", requested_schema=BAD, related_request_id=ctx.request_id
    )
    return _result(answer)


if __name__ == "__main__":
    server.run()
