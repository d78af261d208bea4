"""A small MCP server written with the official SDK, for tests and the tools notebook.

Run as ``python notes_server.py`` (stdio) or ``python notes_server.py --http PORT``
(streamable HTTP at ``/mcp``). Its tools cover every result shape Codex maps (text,
image, structured content, ``isError``) and every failure a client must survive: a
call that hangs, a server that dies mid-call, and a catalog that changes at run time
(``tools/list_changed``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import zlib
import struct

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("notes", instructions="A tiny note book for tests.")
NOTES: dict[str, str] = {}


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG, built by hand so the server needs no imaging library."""
    row = b"\x00" + bytes(rgb) * width
    raw = row * height

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@server.tool(description="Save a note under a title, replacing any note with that title.")
def save_note(title: str, body: str) -> str:
    NOTES[title] = body
    return f"saved {title!r} ({len(body)} characters)"


@server.tool(description="Read the note saved under a title.")
def read_note(title: str) -> str:
    if title not in NOTES:
        raise ValueError(f"no note titled {title!r}")
    return NOTES[title]


@server.tool(description="Count the saved notes and their characters.")
def note_stats() -> dict[str, int]:
    return {"notes": len(NOTES), "characters": sum(map(len, NOTES.values()))}


@server.tool(description="Draw a solid red square as a PNG image.")
def red_square(size: int = 8) -> Image:
    return Image(data=_png(size, size, (220, 30, 30)), format="png")


CANCELLED: list[float] = []


@server.tool(description="Wait for the given number of seconds, then answer.")
async def wait_seconds(seconds: float) -> str:
    try:
        await asyncio.sleep(seconds)
    except BaseException:  # the client's notifications/cancelled cancels this handler
        CANCELLED.append(seconds)
        raise
    return f"waited {seconds} seconds"


@server.tool(description="How many wait_seconds calls the client cancelled.")
def cancelled_waits() -> int:
    return len(CANCELLED)


@server.tool(description="Exit the server process at once, in the middle of this call.")
def crash() -> str:
    os._exit(3)


@server.tool(description="Add a tool named `shout` that upper-cases text, and tell the client the list changed.")
async def enable_shout(ctx: Context) -> str:
    def shout(text: str) -> str:
        return text.upper()

    server.add_tool(shout, name="shout", description="Upper-case the text.")
    # The classic notifications/tools/list_changed (what Codex's client listens for), plus the
    # SDK 2 subscription event for clients that use subscriptions/listen.
    await ctx.request_context.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return "shout is now available"


@server.resource("notes://readme", name="readme", description="How to use the note book.", mime_type="text/plain")
def readme() -> str:
    return "Save notes with save_note, read them with read_note."


@server.resource("notes://note/{title}", name="note", description="One saved note.", mime_type="text/plain")
def note_resource(title: str) -> str:
    return NOTES.get(title, "")


def main() -> None:
    if "--garbage" in sys.argv:  # a broken server: prints non-protocol text and waits
        sys.stdout.write("this is not JSON-RPC\n")
        sys.stdout.flush()
        sys.stdin.read()
        return
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
        return
    server.run("stdio")


if __name__ == "__main__":
    main()
