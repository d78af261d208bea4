"""The client half of ACP: what the agent may ask of us, routed to its session.

Methods are the ``acp.Client`` protocol's; the SDK validates every request before it
gets here. Permission requests and updates go to the ``AcpSession`` they name; file
requests are confined to that session's cwd and run in a worker thread (never on the
event loop); terminal requests are refused unless the
agent was started with ``terminals=True`` (then they run in the session's cwd).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    CreateTerminalResponse,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from ..protocol.events import WarningEvent
from . import draft_v2
from .fs import FileAccessError
from .port import AgentPort

if TYPE_CHECKING:
    from .acp_session import AcpSession

log = logging.getLogger("codex_nb.acp.client")

MAX_BUFFERED_UPDATES = 1000
"""Updates kept per session id not registered yet."""
MAX_EARLY_SESSIONS = 16
"""Session ids not registered yet whose updates are kept (a hostile agent may invent any number)."""


class AcpClient:
    """The ``acp.Client`` this package hands to the SDK for one agent."""

    def __init__(self, agent: AgentPort) -> None:
        self.agent = agent
        self.early_updates: dict[str, list[Any]] = {}
        """Updates for a session id not registered yet (sent before its ``session/new`` response)."""
        self.early_dropped: dict[str, int] = {}
        """Updates dropped per kept session id (its buffer was full); told to the session when it registers."""
        self.dropped_updates = 0
        """Every ``session/update`` dropped because its session id was unknown and no buffer was left."""

    def _session(self, session_id: str, method: str) -> AcpSession:
        # AgentPort types its sessions Any: naming AcpSession there would be an import cycle
        session: AcpSession | None = self.agent.sessions.get(session_id) or self._parent(session_id)
        if session is None:
            raise RequestError(
                -32602, f"{method}: unknown session id {session_id!r}", {"known": sorted(self.agent.sessions)}
            )
        return session

    def _parent(self, session_id: str) -> AcpSession | None:
        """The session a subagent's session id works for (its requests and updates go there)."""
        parent = self.agent.subagent_parents.get(session_id)
        return None if parent is None else self.agent.sessions.get(parent)

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        session = self.agent.sessions.get(session_id)
        if session is None:
            parent = self._parent(session_id)
            if parent is not None:
                parent.side_updates.subagent_activity(session_id, getattr(update, "session_update", None), update)
                return
            self._buffer(session_id, update)
            return
        session.handle_update(update)

    def _buffer(self, session_id: str, update: Any) -> None:
        buffered = self.early_updates.get(session_id)
        if buffered is None and len(self.early_updates) < MAX_EARLY_SESSIONS:
            buffered = self.early_updates[session_id] = []
        if buffered is not None and len(buffered) < MAX_BUFFERED_UPDATES:
            buffered.append(update)
            return
        self.dropped_updates += 1
        if buffered is not None:
            self.early_dropped[session_id] = self.early_dropped.get(session_id, 0) + 1
        if self.dropped_updates == 1:
            log.warning(
                "the ACP agent sent session/update for unknown session id %r beyond what is kept (%d ids, "
                "%d updates each); dropped (AcpAgent.dropped_updates counts them)",
                session_id[:100],
                MAX_EARLY_SESSIONS,
                MAX_BUFFERED_UPDATES,
            )

    def take_early(self, session_id: str) -> tuple[list[Any], int]:
        """The updates kept for ``session_id`` before it was registered, and how many were dropped."""
        return self.early_updates.pop(session_id, []), self.early_dropped.pop(session_id, 0)

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        return await self._session(session_id, "session/request_permission").request_permission(options, tool_call)

    async def read_text_file(
        self, path: str, session_id: str, limit: int | None = None, line: int | None = None, **_: Any
    ) -> ReadTextFileResponse:
        session = self._session(session_id, "fs/read_text_file")
        try:
            # A worker thread: a file request must never block the kernel's event loop.
            content = await asyncio.to_thread(session.files.read, path, line=line, limit=limit)
            return ReadTextFileResponse(content=content)
        except FileAccessError as err:
            raise self._refuse(session, "fs/read_text_file", err) from None

    async def write_text_file(self, content: str, path: str, session_id: str, **_: Any) -> WriteTextFileResponse:
        session = self._session(session_id, "fs/write_text_file")
        try:
            await asyncio.to_thread(session.files.write, path, content)
        except FileAccessError as err:
            raise self._refuse(session, "fs/write_text_file", err) from None
        return WriteTextFileResponse()

    @staticmethod
    def _refuse(session: AcpSession, method: str, err: FileAccessError) -> RequestError:
        message = str(err)
        if not err.not_found:
            session.emit(WarningEvent(message=f"refused the ACP agent's {method}: {message}"))
        if err.not_found:
            return RequestError(-32002, f"Resource not found: {message}", {"details": message})
        return RequestError(-32602, message, {"details": message})

    def _no_terminal(self, method: str) -> RequestError:
        text = (
            f"{method} refused: this client does not offer terminals to the agent (the terminal capability "
            f"is off); run commands with the agent's own tools, or start it with cx.AcpAgent(..., terminals=True)"
        )
        log.info(text)
        for session in self.agent.sessions.values():
            session.emit(WarningEvent(message=f"refused the ACP agent's {method}: terminals are not enabled"))
        return RequestError(-32601, text, {"method": method})

    def _terminals(self, session_id: str, method: str) -> Any:
        if not self.agent.terminals:
            raise self._no_terminal(method)
        return self._session(session_id, method)

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        env: list[Any] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        session = self._terminals(session_id, "terminal/create")
        try:
            terminal_id = await session.terminals.create(command, args, env, cwd, output_byte_limit)
        except FileAccessError as err:
            raise self._refuse(session, "terminal/create", err) from None
        return CreateTerminalResponse(terminal_id=terminal_id)

    def _terminal(self, session_id: str, terminal_id: str, method: str) -> Any:
        session = self._terminals(session_id, method)
        try:
            return session.terminals.get(terminal_id)
        except FileAccessError as err:
            raise self._refuse(session, method, err) from None

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        terminal = self._terminal(session_id, terminal_id, "terminal/output")
        status = terminal.exit_status()
        return TerminalOutputResponse(
            output=terminal.output.decode("utf-8", errors="replace"),
            truncated=terminal.truncated,
            exit_status=None if status is None else TerminalExitStatus(exit_code=status[0], signal=status[1]),
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        self._terminal(session_id, terminal_id, "terminal/wait_for_exit")
        code, sig = await self.agent.sessions[session_id].terminals.wait(terminal_id)
        return WaitForTerminalExitResponse(exit_code=code, signal=sig)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        self._terminal(session_id, terminal_id, "terminal/kill").kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        self._terminal(session_id, terminal_id, "terminal/release")
        await self.agent.sessions[session_id].terminals.release(terminal_id)
        return ReleaseTerminalResponse()

    async def create_elicitation(self, message: str, mode: Any, **meta: Any) -> Any:
        # the SDK spreads the request's _meta into the keyword arguments (codex-acp: codex={...})
        scope = getattr(mode, "root", mode)
        session_id = getattr(scope, "session_id", None)
        schema = getattr(scope, "requested_schema", None)
        if schema is not None:  # a form: the agent's question to the person
            if not self.agent.form_elicitation:
                raise RequestError.method_not_found("elicitation/create")
            if session_id is None:
                raise RequestError(
                    -32602,
                    "elicitation/create: this client shows the form elicitations of a session only (with "
                    "sessionId); request-scoped forms are not supported",
                    {"supported": ["form with sessionId", "url with sessionId"]},
                )
            session = self._session(session_id, "elicitation/create")
            return await session.elicitations.ask_form(
                message if isinstance(message, str) else "",
                schema,
                tool_call_id=getattr(scope, "tool_call_id", None),
                meta=meta,
            )
        if not self.agent.elicitation:
            raise RequestError.method_not_found("elicitation/create")
        elicitation_id = getattr(scope, "elicitation_id", None)
        url = getattr(scope, "url", None)
        if session_id is None or elicitation_id is None or url is None:
            raise RequestError(
                -32602,
                "elicitation/create: this client shows URL elicitations of a session only (mode url with "
                "sessionId); request-scoped URL elicitations are not supported",
                {"supported": ["url with sessionId", "form with sessionId"]},
            )
        session = self._session(session_id, "elicitation/create")
        return await session.elicitations.ask_url(message, elicitation_id=elicitation_id, url=str(url))

    async def complete_elicitation(self, elicitation_id: str, **_: Any) -> None:
        if not self.agent.elicitation:
            return
        for session in self.agent.sessions.values():
            if session.elicitations.complete(elicitation_id):
                return
        log.info("elicitation/complete for %r matched no open elicitation", elicitation_id[:100])

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == draft_v2.EXT_METHOD:  # an update the SDK's schema lacks, set aside by the transport
            session_id = str(params.get("sessionId"))
            session = self.agent.sessions.get(session_id)
            update = params["update"]
            if session is not None:
                session.handle_v2_update(update)
            elif (parent := self._parent(session_id)) is not None:
                parent.side_updates.subagent_activity(session_id, update.get("sessionUpdate"), update)
            return
        log.debug("ignoring ACP extension notification _%s", method)

    def on_connect(self, conn: Any) -> None:
        pass
