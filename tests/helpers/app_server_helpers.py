"""Shared helpers for tests that drive the real ``codex app-server`` (the version pinned in ``.ci/codex-version``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import codex_nb as cx
from codex_nb.testing import ResponsesServer, codex_binary

ADD_NOTES = "*** Begin Patch\n*** Add File: notes.txt\n+first\n+second\n*** End Patch\n"
UPDATE_APP = "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n+y = 3\n*** End Patch\n"


def apply_patch_call(patch: str, call_id: str) -> dict[str, Any]:
    """The model's ``exec_command`` call that applies ``patch`` with Codex's ``apply_patch``."""
    return cx.function_call("exec_command", {"cmd": f"apply_patch <<'EOF'\n{patch}EOF\n"}, call_id=call_id)


def git_work_tree(path: Path) -> Path:
    """A git work tree holding ``app.py`` (``x = 1``) in one commit: Codex diffs a turn against the
    files as they were when the turn first touched them."""
    path.mkdir()
    (path / "app.py").write_text("x = 1\n")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    return path


PLAN_TOOLS = {"tools": {"update_plan": {"enabled": True}}}
# request_user_input arguments: one question, two options
SCOPE_QUESTION = {
    "questions": [
        {
            "id": "scope",
            "header": "Scope",
            "question": "Which scope?",
            "options": [
                {"label": "Small (Recommended)", "description": "one file"},
                {"label": "Large", "description": "many files"},
            ],
        }
    ]
}


def plan_call(steps: list[tuple[str, str]], *, call_id: str, explanation: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"plan": [{"step": s, "status": st} for s, st in steps]}
    if explanation is not None:
        args["explanation"] = explanation
    return cx.function_call("update_plan", args, call_id=call_id)


def hook_trust_toml(listed: list[dict[str, Any]]) -> str:
    """``[hooks.state]`` tables trusting the hooks Codex listed (``hooks/list``), at the hash it gave."""
    return "".join(
        f"\n[hooks.state.{json.dumps(h['key'])}]\ntrusted_hash = {json.dumps(h['currentHash'])}\n" for h in listed
    )


class Waiter:
    """Resolves when an event matching ``predicate`` is emitted on the source."""

    def __init__(self, source: Any, predicate: Callable[[cx.events.Event], bool]) -> None:
        self.future: asyncio.Future[cx.events.Event] = asyncio.get_running_loop().create_future()
        self._predicate = predicate
        self._unsubscribe = source.subscribe(self._on)

    def _on(self, event: cx.events.Event) -> None:
        if not self.future.done() and self._predicate(event):
            self.future.set_result(event)
            self._unsubscribe()

    async def wait(self, timeout: float = 60) -> cx.events.Event:
        return await asyncio.wait_for(self.future, timeout)


def of_type(kind: str) -> Callable[[cx.events.Event], bool]:
    return lambda e: e.msg.type == kind


@contextlib.asynccontextmanager
async def real_codex(
    script: list[Any], home: Path, *, allow_leftover: bool = False, extra_toml: str = "", **overrides: Any
) -> AsyncIterator[tuple[cx.CodexAppServer, ResponsesServer]]:
    """The real app-server sampling from a scripted local Responses server, schema-validated."""
    async with ResponsesServer(script, allow_leftover=allow_leftover) as srv:
        srv.write_codex_home(home, **{**PLAN_TOOLS, **overrides})
        if extra_toml:
            with (home / "config.toml").open("a", encoding="utf-8") as f:
                f.write(extra_toml)
        env = {**os.environ, "OPENAI_API_KEY": "sk-local-test"}
        async with cx.CodexAppServer(binary=codex_binary(), codex_home=home, env=env, validate=True) as server:
            yield server, srv


class Reached:
    """A script entry that marks (on the test's loop) that Codex sent this request, then stalls."""

    def __init__(self, then: Any = None) -> None:
        from codex_nb.testing import Stall

        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.then = then if then is not None else Stall(120)

    def __call__(self, body: dict[str, Any]) -> Any:
        self.loop.call_soon_threadsafe(self.event.set)
        return self.then

    async def wait(self, timeout: float = 60) -> None:
        await asyncio.wait_for(self.event.wait(), timeout)


def live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are still running (zombies excluded: in a container
    whose PID 1 does not reap, a dead child of Codex can stay a zombie for good)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


ELICIT_SERVER = Path(__file__).resolve().parent.parent / "mcp_servers" / "elicit_server.py"


def forms_script(*tools: str) -> Callable[[dict[str, Any]], Any]:
    """A Responses step for the real Codex with the ``forms`` MCP server: wait until Codex has
    started it (it announces ``mcp__forms``), then search and call ``tools``, then finish."""
    import json as _json

    state = {"phase": "wait", "waits": 0}

    def step(body: dict[str, Any]) -> Any:
        developer = _json.dumps([i for i in body["input"] if i.get("role") == "developer"])
        if state["phase"] == "wait" and "mcp__forms" not in developer:
            state["waits"] += 1
            return [cx.function_call("get_context_remaining", {}, call_id=f"w{state['waits']}")]
        if state["phase"] == "wait":
            state["phase"] = "calls"
            calls = [cx.function_call(t, {}, namespace="mcp__forms", call_id=f"c{i}") for i, t in enumerate(tools)]
            return [cx.tool_search_call("forms", limit=50, call_id="search"), *calls]
        state["phase"] = "wait"  # the next turn waits again (the announcement stays) and calls again
        return [cx.assistant_message("done")]

    return step


@contextlib.asynccontextmanager
async def forms_codex(
    home: Path, *tools: str, approve_tools: bool = True
) -> AsyncIterator[tuple[cx.CodexAppServer, ResponsesServer]]:
    """The real app-server with the elicitation MCP server configured; elicitations reach the
    client only when the approval policy lets Codex ask (``on-request``). Without
    ``approve_tools`` Codex also asks (as an elicitation) before each tool runs."""
    table: dict[str, Any] = {
        "forms": {"command": sys.executable, "args": [str(ELICIT_SERVER)], "startup_timeout_sec": 60}
    }
    if approve_tools:
        table["forms"]["default_tools_approval_mode"] = "approve"
    step = forms_script(*tools)
    async with ResponsesServer([step] * 200, allow_leftover=True) as srv:
        srv.write_codex_home(
            home, model="gpt-5.5", mcp_servers=table, features={"token_budget": True}, approval_policy="on-request"
        )
        env = {**os.environ, "OPENAI_API_KEY": "sk-local-test"}
        async with cx.CodexAppServer(binary=codex_binary(), codex_home=home, env=env, validate=True) as server:
            yield server, srv
