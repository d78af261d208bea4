"""Opt-in handlers start inline (no task until their first real wait), with every race kept."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, ClassVar

import codex_nb as cx
from codex_nb.tools.calls import run_call, start_inline
from codex_nb.tools.names import ToolName
from codex_nb.tools.payload import Payload, ToolCall

PLAN = {"plan": [{"step": "a", "status": "pending"}]}
MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="caller")


class Spinner(cx.tools.Tool):
    """Opts in, then spins on bare yields forever (until cancelled)."""

    inline_start: ClassVar[bool] = True

    def __init__(self, started: asyncio.Event) -> None:
        super().__init__("spin")
        self.started = started

    def spec(self) -> dict[str, Any]:
        return {"type": "function", "name": "spin", "description": "spins", "parameters": {"type": "object"}}

    async def handle(self, invocation: cx.tools.ToolInvocation) -> cx.tools.ToolOutput:
        MARK.set("handler")
        self.started.set()
        while True:  # noqa: ASYNC110  spins on purpose: only a cancellation ends this handler
            await asyncio.sleep(0)


def call_of(name: str, args: str = "{}") -> ToolCall:
    return ToolCall(tool_name=ToolName.of(name), call_id=f"c-{name}", payload=Payload.function(args))


async def test_update_plan_finishes_inline_without_a_task(session: cx.Session) -> None:
    turn = session._new_turn(cx.tools.ModeKind.DEFAULT)
    entry = session.tool_plan().router.lookup(ToolName.of("update_plan"))
    assert entry is not None and entry.tool.inline_start
    before = len(asyncio.all_tasks())
    result = await run_call(call_of("update_plan", '{"plan":[]}'), turn, session.tool_plan().router)
    assert result.output.text == "Plan updated" and len(asyncio.all_tasks()) == before


async def test_a_spinning_handler_is_handed_off_and_can_be_interrupted(session: cx.Session, no_leaked_tasks) -> None:
    started = asyncio.Event()
    session.registry.register(Spinner(started), source="user")
    handle = session.start_turn(
        "go", model=cx.ScriptedModel([[cx.function_call("spin", {}, call_id="s")]], allow_leftover=True)
    )
    await started.wait()  # the loop runs: the spinner was handed to a task, not run to death inline
    assert MARK.get() == "caller"  # the handler's context change stayed in its own context
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted" and result.outputs()["s"].startswith("aborted by user after")


async def test_inline_part_runs_in_an_isolated_context(session: cx.Session) -> None:
    async def sets_mark() -> str:
        MARK.set("inline")
        return "done"

    coro = sets_mark()
    finished, task = start_inline(coro, session._new_turn(cx.tools.ModeKind.DEFAULT).cancel)  # type: ignore[arg-type]
    assert (finished, task) == ("done", None)
    assert MARK.get() == "caller"


async def test_call_order_with_parallel_readers_around_update_plan(session: cx.Session) -> None:
    log: list[str] = []
    release, a_started = asyncio.Event(), asyncio.Event()

    @session.tool(parallel=True)
    async def read(name: str) -> str:
        """A parallel reader."""
        log.append(f"start {name}")
        if name == "a":
            a_started.set()
        await release.wait()
        log.append(f"end {name}")
        return name

    session.subscribe(lambda e: log.append("plan") if e.msg.type == "plan_update" else None)
    model = cx.ScriptedModel(
        [
            [
                cx.function_call("read", {"name": "a"}, call_id="a"),
                cx.function_call("update_plan", PLAN, call_id="p"),
                cx.function_call("read", {"name": "b"}, call_id="b"),
            ],
            [cx.assistant_message("ok")],
        ]
    )
    handle = session.start_turn("go", model=model)
    await a_started.wait()
    assert log == ["start a"]  # update_plan waits for reader a; reader b waits behind update_plan
    release.set()
    result = await handle
    assert log == ["start a", "end a", "plan", "start b", "end b"]
    assert list(result.outputs()) == ["a", "p", "b"]


async def test_asyncio_timeout_and_taskgroup_inside_tools_keep_working(session: cx.Session) -> None:
    @session.tool
    async def guarded() -> str:
        """Uses asyncio.timeout and a TaskGroup."""
        try:
            async with asyncio.timeout(0.01):
                await asyncio.Event().wait()
        except TimeoutError:
            pass
        async with asyncio.TaskGroup() as group:
            one = group.create_task(asyncio.sleep(0, "x"))
            two = group.create_task(asyncio.sleep(0, "y"))
        return one.result() + two.result()

    result = await session.call_tool("guarded", {})
    assert result.output == "xy"
