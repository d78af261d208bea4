"""A tiny ACP agent that speaks the real protocol badly, for the client's failure tests.

It is a real subprocess on the official SDK's agent side (``acp.run_agent``); what it
does on ``session/prompt`` is named by the prompt text:

- ``malformed``: writes broken lines between valid messages (not JSON, a JSON array,
  a bare number, an object that is no JSON-RPC message, a ``session/update`` with bad
  params), then a valid plan and ``end_turn``;
- ``fs {"ops": [...]}``: runs each ``{"op": "read"|"write", "path", "content"?}`` through
  the client and answers with one JSON message listing ``{"ok": ...}`` / ``{"error": ...}``;
- ``terminal [{"command", "args", "cwd", "limit", "kill"}]``: runs a command in a client terminal
  (create, optional kill, wait, output, release) and reports what it got, or the refusal;
- ``crash``: writes to stderr and exits with code 3 in the middle of the prompt;
- ``burst <n> <steps>``: sends ``n`` plan updates of ``steps`` steps, then ``end_turn``;
- ``stop <reason>``: ends the prompt with that ``stopReason``;
- ``hang``: starts a tool call and never ends the prompt, ignoring ``session/cancel``;
- ``last-update``: starts a tool call and says "done ", then writes the call's completion
  right before the prompt's response;
- ``late``: starts a tool call, ends the prompt, and only then sends a message chunk and
  the call's completion (after the response: they belong to no turn);
- ``badplan``: a 4-step plan whose steps 2-4 have an unknown status, an unknown priority and
  non-string content (the SDK would drop them one by one);
- ``flood <n>``: ``n`` tool calls, each started and completed;
- ``ghosts <n>``: one update for each of ``n`` session ids that do not exist;
- ``usage <used> <size> <input> <output>``: a ``usage_update`` (``used`` of ``size`` tokens in
  context), then ``end_turn`` with the turn's ``usage`` as codex-acp 2.x sends it;
- ``ask-flood``: a ``tool_call`` whose content is 30 diffs, the first of a 10 MB file, then a
  ``session/request_permission`` for it naming 10,000 locations (markup in their names, most outside
  the session folder) and no content (the diffs are the call's); answers with the outcome it got;
- ``todos <json>``: a Gemini-style ``write_todos`` call (id ``write_todos__write_todos_<n>_0``, kind
  other) whose ``rawInput`` is the JSON given (or none when it is ``-``), started and completed;
- anything else: answers ``echo: <text>``.

``--require-auth``: ``session/new`` fails with auth_required until ``authenticate`` is
called with method ``hostile-key`` while ``HOSTILE_KEY`` is set in its environment.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

import acp
from acp import RequestError, plan_entry, start_tool_call, update_agent_message_text, update_plan
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    EnvVarAuthMethod,
    InitializeResponse,
    FileEditToolCallContent,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallLocation,
    ToolCallStart,
    ToolCallUpdate,
    Usage,
)

REQUIRE_AUTH = "--require-auth" in sys.argv


def raw(line: str) -> None:
    os.write(1, (line + "\n").encode())


def raw_update(session_id: str, update: dict[str, Any]) -> None:
    """A ``session/update`` written past the SDK, so it may break the schema the SDK enforces."""
    raw(
        json.dumps(
            {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}}
        )
    )


class HostileAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.authenticated = False
        self.todo_calls = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        methods = [
            EnvVarAuthMethod(id="hostile-key", name="Use HOSTILE_KEY", type="env_var", vars=[{"name": "HOSTILE_KEY"}])
        ]
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION, agent_capabilities=AgentCapabilities(), auth_methods=methods
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        if method_id != "hostile-key" or not os.environ.get("HOSTILE_KEY"):
            raise RequestError(-32000, "HOSTILE_KEY is not set")
        self.authenticated = True
        return AuthenticateResponse()

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        if REQUIRE_AUTH and not self.authenticated:
            raise RequestError.auth_required()
        return NewSessionResponse(session_id=f"hostile-{uuid.uuid4().hex[:8]}")

    async def cancel(self, session_id: str, **_: Any) -> None:
        pass

    async def late(self, session_id: str) -> None:
        await self.say(session_id, "LATE")
        raw_update(session_id, {"sessionUpdate": "tool_call_update", "toolCallId": "late-1", "status": "completed"})

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id=session_id, update=update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        if text == "malformed":
            raw("this is not json")
            raw("[1, 2, 3]")
            raw("42")
            raw('{"jsonrpc": "2.0", "note": "neither request nor response"}')
            raw_update(session_id, {"sessionUpdate": "plan", "entries": 7})
            await self.conn.session_update(
                session_id=session_id,
                update=update_plan([plan_entry("survive the garbage", priority="high", status="completed")]),
            )
            await self.say(session_id, "still here")
        elif text.startswith("fs "):
            results = []
            for op in json.loads(text[3:])["ops"]:
                try:
                    if op["op"] == "read":
                        got = await self.conn.read_text_file(
                            session_id=session_id, path=op["path"], line=op.get("line"), limit=op.get("limit")
                        )
                        results.append({"ok": got.content})
                    else:
                        await self.conn.write_text_file(session_id=session_id, path=op["path"], content=op["content"])
                        results.append({"ok": None})
                except RequestError as err:
                    results.append({"error": str(err), "code": err.code})
            await self.say(session_id, json.dumps(results))
        elif text.startswith("terminal"):
            spec = json.loads(text[len("terminal") :] or '{"command": "echo", "args": ["hi"]}')
            try:
                created = await self.conn.create_terminal(
                    session_id=session_id,
                    command=spec["command"],
                    args=spec.get("args"),
                    cwd=spec.get("cwd"),
                    output_byte_limit=spec.get("limit"),
                )
                tid = created.terminal_id
                if spec.get("kill"):
                    await self.conn.kill_terminal(session_id=session_id, terminal_id=tid)
                done = await self.conn.wait_for_terminal_exit(session_id=session_id, terminal_id=tid)
                out = await self.conn.terminal_output(session_id=session_id, terminal_id=tid)
                await self.conn.release_terminal(session_id=session_id, terminal_id=tid)
                try:
                    await self.conn.terminal_output(session_id=session_id, terminal_id=tid)
                    after = "still there"
                except RequestError as err:
                    after = str(err)
                await self.say(
                    session_id,
                    json.dumps(
                        {
                            "exit": done.exit_code,
                            "signal": done.signal,
                            "output": out.output,
                            "truncated": out.truncated,
                            "after_release": after,
                        }
                    ),
                )
            except RequestError as err:
                await self.say(session_id, json.dumps({"error": str(err), "code": err.code}))
        elif text.startswith("burst "):
            count, steps = map(int, text.split()[1:3])
            for i in range(count):
                await self.conn.session_update(
                    session_id=session_id,
                    update=update_plan(
                        [
                            plan_entry(f"step {j}", status="completed" if j < i * steps // count else "pending")
                            for j in range(steps)
                        ]
                    ),
                )
        elif text.startswith("todos "):
            self.todo_calls += 1
            call: dict[str, Any] = {
                "toolCallId": f"write_todos__write_todos_{self.todo_calls}_0",
                "title": "Set todo(s)",
                "kind": "other",
                "status": "in_progress",
            }
            if text[6:] != "-":
                call["rawInput"] = json.loads(text[6:])
            raw_update(session_id, {"sessionUpdate": "tool_call", **call})
            raw_update(session_id, {"sessionUpdate": "tool_call_update", **call, "status": "completed"})
        elif text == "ask-flood":
            diffs = [
                FileEditToolCallContent(
                    type="diff", path="/etc/<img src=x onerror=alert(1)>.conf", new_text="z\n" * 5_000_000
                )
            ]
            diffs += [
                FileEditToolCallContent(type="diff", path=f"f{i}.txt", old_text="a\n", new_text="b\n")
                for i in range(29)
            ]
            start = ToolCallStart(
                session_update="tool_call",
                tool_call_id="flood-1",
                title="Edit file",
                kind="edit",
                status="pending",
                content=diffs,
            )
            await self.conn.session_update(session_id=session_id, update=start)
            locations = [ToolCallLocation(path=f"/outside/<b>{i}</b>.txt") for i in range(10_000)]
            options = [
                PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                PermissionOption(option_id="no", name="Reject", kind="reject_once"),
            ]
            asked = await self.conn.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(tool_call_id="flood-1", locations=locations),
                options=options,
            )
            await self.say(session_id, f"outcome: {getattr(asked.outcome, 'option_id', asked.outcome.outcome)}")
        elif text.startswith("stop "):
            return PromptResponse(stop_reason=text[5:])
        elif text == "hang":
            await self.conn.session_update(
                session_id=session_id,
                update=start_tool_call("hang-1", "Wait forever", kind="other", status="in_progress"),
            )
            await asyncio.Event().wait()
        elif text == "last-update":
            call_id = f"last-{uuid.uuid4().hex[:8]}"
            await self.conn.session_update(
                session_id=session_id, update=start_tool_call(call_id, "Quick", kind="read", status="in_progress")
            )
            await self.conn.session_update(session_id=session_id, update=update_agent_message_text("done "))
            raw_update(session_id, {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "completed"})
        elif text == "late":
            await self.conn.session_update(
                session_id=session_id, update=start_tool_call("late-1", "Slow", kind="read", status="in_progress")
            )
            await self.say(session_id, "answer")
            # Runs after the SDK has queued this prompt's response (it queues it as soon as
            # this handler returns, before any other task runs).
            asyncio.get_running_loop().create_task(self.late(session_id))
        elif text == "badplan":
            raw_update(
                session_id,
                {
                    "sessionUpdate": "plan",
                    "entries": [
                        {"content": "fine", "priority": "high", "status": "completed"},
                        {"content": "blocked one", "priority": "low", "status": "blocked"},
                        {"content": "urgent one", "priority": "urgent", "status": "pending"},
                        {"content": {"title": "an object"}, "priority": "medium", "status": "in_progress"},
                    ],
                },
            )
            await self.say(session_id, "planned")
        elif text.startswith("flood "):
            for i in range(int(text.split()[1])):
                await self.conn.session_update(
                    session_id=session_id,
                    update=start_tool_call(f"flood-{i}", f"call {i}", kind="read", status="completed"),
                )
        elif text.startswith("ghosts "):
            for i in range(int(text.split()[1])):
                await self.conn.session_update(session_id=f"ghost-{i}", update=update_agent_message_text("boo"))
        elif text.startswith("usage "):
            used, size, input_tokens, output_tokens = (int(n) for n in text.split()[1:])
            raw_update(session_id, {"sessionUpdate": "usage_update", "used": used, "size": size})
            await self.say(session_id, "counted")
            return PromptResponse(
                stop_reason="end_turn",
                usage=Usage(
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    total_tokens=input_tokens + output_tokens,
                    cached_read_tokens=0,
                    thought_tokens=0,
                ),
            )
        elif text == "crash":
            await self.say(session_id, "about to crash")
            sys.stderr.write("hostile agent: fatal error: the flux capacitor broke\n")
            sys.stderr.flush()
            os._exit(3)
        else:
            await self.say(session_id, f"echo: {text}")
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(acp.run_agent(HostileAgent()))
