"""The agent half of ACP over a ``cx.Session`` (the client half is ``codex_nb.acp``).

Session events are translated in order by one pump task per session, because ACP
notifications are async sends while bus subscribers are synchronous; a prompt's
response is sent only after its updates, as ACP requires.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import acp
from acp import RequestError, plan_entry, start_tool_call, update_agent_message_text, update_plan, update_tool_call
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PlanEntryStatus,
    PromptResponse,
    StopReason,
    ToolKind,
)

from ..config import Config
from ..protocol.events import AgentMessage, Event, PlanUpdate
from ..protocol.plan import StepStatus
from ..runtime.session import Session
from ..tools.lifecycle import LifecycleRecord

log = logging.getLogger("codex_nb.agent_server.codex_agent")

STOP_REASON: dict[str, StopReason] = {"completed": "end_turn", "interrupted": "cancelled"}
_PLAN_STATUS: dict[StepStatus, PlanEntryStatus] = {
    StepStatus.PENDING: "pending",
    StepStatus.IN_PROGRESS: "in_progress",
    StepStatus.COMPLETED: "completed",
}


class _Served:
    """One ACP session: the codex_nb session and the ordered queue of its updates."""

    def __init__(self, session: Session, send: Callable[[Any], Any]) -> None:
        self.session = session
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.handle: Any = None
        self.pump = asyncio.get_running_loop().create_task(self._pump(send), name=f"acp-serve-{session.thread_id}")

    async def _pump(self, send: Callable[[Any], Any]) -> None:
        while True:
            update = await self.queue.get()
            try:
                await send(update)
            except Exception as err:  # the client went away: drop the rest, keep serving  # noqa: BLE001
                log.info("could not send a session/update: %s", err)
            finally:
                self.queue.task_done()

    def on_event(self, event: Event) -> None:
        msg = event.msg
        if isinstance(msg, PlanUpdate):
            self.queue.put_nowait(
                update_plan([plan_entry(item.step, status=_PLAN_STATUS[item.status]) for item in msg.plan])
            )
        elif isinstance(msg, AgentMessage):
            self.queue.put_nowait(update_agent_message_text(msg.message))

    def on_lifecycle(self, record: LifecycleRecord) -> None:
        if record.phase == "start":
            self.queue.put_nowait(
                start_tool_call(record.call_id, record.tool_name.display, kind=_kind(record), status="in_progress")
            )
            return
        outcome = record.outcome
        ok = outcome is not None and outcome.kind == "Completed" and bool(outcome.success)
        self.queue.put_nowait(update_tool_call(record.call_id, status="completed" if ok else "failed"))


def _kind(record: LifecycleRecord) -> ToolKind:
    return "think" if record.tool_name.name == "update_plan" else "other"


class CodexNbAgent:
    """An ``acp.Agent``: each ``session/new`` makes a ``cx.Session``; prompts run turns on ``model``."""

    def __init__(self, model: Any, *, config: Config | None = None) -> None:
        if not hasattr(model, "sample"):
            raise TypeError(f"CodexNbAgent needs a model with async sample(request), got {type(model).__name__}")
        self.model = model
        self.config = config
        self.conn: Any = None
        self.sessions: dict[str, _Served] = {}

    def on_connect(self, conn: Any) -> None:
        """Keep the client connection ``acp`` hands over: ``session/update`` notifications go out on it."""
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        """ACP ``initialize``: answers with the SDK's protocol version, the default capabilities (no
        ``session/load``; prompts are text) and ``codex_nb`` with its version as agent info."""
        try:
            ours = version("codex_nb")
        except PackageNotFoundError:
            ours = "0"
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="codex_nb", title="codex_nb", version=ours),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        """ACP ``authenticate``: always an invalid-params error, since this agent offers no auth methods."""
        raise RequestError.invalid_params({"details": "codex_nb needs no authentication"})

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        """ACP ``session/new``: a new ``Session`` in ``cwd`` with this agent's config, whose plan
        updates, tool calls and assistant messages go to the client in order as ``session/update``;
        its ``thread_id`` is the ACP session id. MCP servers the client offers are not used."""
        session = Session(self.config, cwd=cwd)
        served = _Served(session, lambda update: self.conn.session_update(session_id=session.thread_id, update=update))
        session.subscribe(served.on_event)
        session.on_lifecycle(served.on_lifecycle)
        self.sessions[session.thread_id] = served
        return NewSessionResponse(session_id=session.thread_id)

    def _served(self, session_id: str) -> _Served:
        served = self.sessions.get(session_id)
        if served is None:
            raise RequestError.invalid_params({"details": f"unknown session id {session_id!r}"})
        return served

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        """ACP ``session/prompt``: run a turn on the prompt's text blocks (other blocks are ignored) and
        answer once all its updates were sent, ``end_turn`` or ``cancelled`` as the stop reason. A failed
        turn is an internal error carrying its last error message; an unknown session id is an
        invalid-params error, a prompt while one runs an invalid request."""
        served = self._served(session_id)
        if served.handle is not None and not served.handle.done():
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        text = "\n".join(block.text for block in prompt if getattr(block, "type", None) == "text")
        served.handle = served.session.start_turn(text, model=self.model)
        result = await served.handle
        await served.queue.join()  # every update of the turn goes out before the response
        if result.status == "failed":
            errors = [e.msg.message for e in result.events if e.msg.type == "error"]
            raise RequestError.internal_error({"details": errors[-1] if errors else "the turn failed"})
        return PromptResponse(stop_reason=STOP_REASON.get(result.status, "end_turn"))

    async def cancel(self, session_id: str, **_: Any) -> None:
        """ACP ``session/cancel``: interrupt the session's running turn (its prompt then answers
        ``cancelled``); an unknown session id or an ended turn is ignored, as a notification must be."""
        served = self.sessions.get(session_id)
        if served is not None and served.handle is not None:
            served.handle.interrupt()

    async def close(self) -> None:
        """Stop every session's update pump and close its ``Session`` (a running turn is interrupted);
        ``serve`` calls it once the client is gone."""
        for served in self.sessions.values():
            served.pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await served.pump
            await served.session.aclose()


async def serve(model: Any, *, config: Config | None = None) -> None:
    """Serve ACP on this process's stdin/stdout until the client closes stdin."""
    agent = CodexNbAgent(model, config=config)
    try:
        # acp.Agent lists every ACP method as required, but its router answers method_not_found
        # for the ones an agent does not define (load_session, fork_session, ...), as here.
        await acp.run_agent(agent)  # type: ignore[arg-type]
    finally:
        await agent.close()
