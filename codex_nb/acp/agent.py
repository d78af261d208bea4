"""``AcpAgent``: one Agent Client Protocol agent subprocess and its sessions.

The protocol itself is the official ``acp`` SDK (PyPI ``agent-client-protocol``); this
module owns the process (own process group, ended on close and at kernel shutdown),
the handshake (``initialize`` with our client capabilities, ``authenticate`` with an
environment-variable method when the agent demands it) and the sessions.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CassetteError
from ..protocol.events import Event, WarningEvent
from ..cassettes.rpc_cassette import RpcCassette
from .client import AcpClient
from .acp_errors import AcpAuthError, AcpError
from .agent_process import STREAM_LIMIT, AgentProcess, describe_exit
from .acp_session import AcpSession
from .listing import SessionListing
from .transport import CheckedTransport

log = logging.getLogger("codex_nb.acp")

AUTH_REQUIRED = -32000
LIST_LIMIT = 10_000
"""The most sessions ``list_sessions()`` reads by default (an agent's pages may never end)."""
LIST_BUDGET = 30.0
"""Seconds ``list_sessions()`` spends paging by default."""
CLIENT_NAME = "codex_nb"


class AcpAgent:
    """An ACP agent: ``agent = cx.AcpAgent("codex-acp", env={...})``, then
    ``session = await agent.new_session(cwd)`` (starts it) and ``session.prompt(text)``.

    ``env`` is added to the kernel's environment (``inherit_env=False``: only ``env``);
    ``cwd`` is where the process starts (default: the session cwd of the first
    ``new_session``). ``terminals=True`` lets the agent run commands through ``terminal/*``
    (in the session's cwd or below). The agent's questions (form elicitations) reach the person as
    question cards unless ``form_elicitation=False``; ``elicitation=True`` adds URL elicitations.
    ``cancel_grace`` is how long an interrupted prompt may take to
    answer ``session/cancel`` before the turn is ended locally. Use ``async with`` or
    ``await agent.aclose()``; the process group is also killed when the kernel exits.
    """

    def __init__(
        self,
        command: str | os.PathLike[str],
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        cwd: str | Path | None = None,
        terminals: bool = False,
        elicitation: bool = False,
        form_elicitation: bool = True,
        cancel_grace: float = 5.0,
        startup_timeout: float = 60.0,
        stderr_lines: int = 200,
        cassette: str | os.PathLike[str] | None = None,
        record_mode: str = "once",
        cassette_filters: Any = None,
    ) -> None:
        if not isinstance(command, (str, os.PathLike)) or not str(command):
            raise AcpError(f"AcpAgent needs the agent command (a path or a name on PATH), got {command!r}")
        if isinstance(args, (str, bytes)) or not all(isinstance(a, str) for a in args):
            raise AcpError(f"AcpAgent args must be a list of strings, e.g. ['--experimental-acp'], got {args!r}")
        bad = {k: v for k, v in (env or {}).items() if not isinstance(k, str) or not isinstance(v, str)}
        if bad:
            raise AcpError(f"AcpAgent env values must be strings; fix {sorted(map(str, bad))}")
        self.command = str(command)
        self.args = list(args)
        self.env = {**(os.environ if inherit_env else {}), **(env or {})}
        self.cwd = None if cwd is None else str(cwd)
        self.terminals = bool(terminals)
        """Offer ``terminal/*`` to the agent (commands run in the session's cwd); off by default."""
        self.elicitation = bool(elicitation)
        """Offer URL elicitation (``elicitation/create`` and ``elicitation/complete``, unstable in the
        pinned SDK) to the agent; off by default, so ``initialize`` is as before."""
        self.form_elicitation = bool(form_elicitation)
        """Offer form elicitation (``clientCapabilities.elicitation.form``): the agent's questions reach
        the person as question cards (codex-acp's ``request_user_input``, Claude's AskUserQuestion, MCP
        forms). On by default; without it codex-acp answers its model's questions itself with no answer
        and claude-agent-acp turns AskUserQuestion off."""
        self.cancel_grace = cancel_grace
        self.startup_timeout = startup_timeout
        self.stderr_lines = stderr_lines
        self.cassette: RpcCassette | None = None
        """The recorded conversation this agent replays or records into (``cassette=``), or None."""
        if cassette is not None:
            self.cassette = RpcCassette(
                cassette,
                record_mode,
                who=f"the ACP agent {Path(self.command).name}",
                env=self.env,
                named={"codex_home": self.env.get("CODEX_HOME"), "agent_cwd": self.cwd},
                filters=cassette_filters,
            )
        self.cassette_error: CassetteError | None = None
        """Why the recording could not be written (``aclose()`` raises it too)."""
        self.sessions: dict[str, AcpSession] = {}
        self.subagent_parents: dict[str, str] = {}
        """A subagent's session id -> the session it works for (as each ``subagent_update`` says)."""
        self.info: Any = None
        """The agent's ``initialize`` response (capabilities, auth methods, agent info)."""
        self.malformed: list[str] = []
        """Every malformed message the agent sent (each was ignored and reported)."""
        self.process: AgentProcess | None = None
        self._client = AcpClient(self)
        self._conn: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._exit_reported = False
        self._start_lock: asyncio.Lock | None = None

    # -- facts -----------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The agent process's id (it leads its own process group), or None before ``start()`` and
        when a cassette replays the agent (no process exists then). It stays set after the process ends."""
        return None if self.process is None else self.process.pid

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the agent started on (its requests and sessions belong to it), or None
        before ``start()``."""
        return self._loop

    @property
    def running(self) -> bool:
        """True from ``start()`` until the process exits or ``aclose()`` begins."""
        return self.process is not None and self.process.returncode is None and not self._closing

    @property
    def dropped_updates(self) -> int:
        """``session/update`` notifications dropped: unknown session id and no room left to keep them."""
        return self._client.dropped_updates

    def stderr_tail(self, lines: int = 20) -> str:
        """The agent's last stderr lines."""
        return "" if self.process is None else self.process.stderr_text(lines)

    # -- start -----------------------------------------------------------------------------
    async def start(self, cwd: str | Path | None = None) -> AcpAgent:
        """Start the process and run ``initialize`` (done by ``new_session`` if needed)."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._conn is not None:
                self._require_running()
                return self
            if self._closing:
                raise AcpError(f"this AcpAgent ({self.command}) was closed; create a new one")
            await self._start(cwd)
        return self

    async def _start(self, cwd: str | Path | None) -> None:
        import acp
        from acp.schema import (
            ClientCapabilities,
            ElicitationCapabilities,
            ElicitationFormCapabilities,
            ElicitationUrlCapabilities,
            FileSystemCapabilities,
            Implementation,
            PlanCapabilities,
        )

        self._loop = asyncio.get_running_loop()
        cassette = self.cassette
        if cassette is not None and cassette.replaying:  # the recording stands in for the agent: none is started
            self.process = AgentProcess(cassette.process(limit=STREAM_LIMIT), self.command)
        else:
            self.process = await AgentProcess.spawn(
                self.command, self.args, env=self.env, cwd=self.cwd or cwd, stderr_lines=self.stderr_lines
            )
        proc = self.process.process
        assert proc.stdout is not None and proc.stdin is not None
        transport = CheckedTransport(
            proc.stdout,
            proc.stdin,
            self._on_malformed,
            limit=STREAM_LIMIT,
            tape=None if cassette is None else cassette.recorder,
        )
        # acp.Client lists every client method as required, in its own parameter order; its router
        # calls the methods a client defines, always with keyword arguments. Its unstable methods
        # (elicitation) would raise a UserWarning in the kernel unless use_unstable_protocol is set:
        # AcpClient refuses them itself when elicitation is off.
        self._conn = acp.connect_to_agent(
            self._client,  # type: ignore[arg-type]
            transport,
            use_unstable_protocol=True,
        )
        self._spawn(self._watch(), name=f"acp-watch-{self.process.pid}")
        from importlib.metadata import PackageNotFoundError, version

        try:
            ours = version("codex_nb")
        except PackageNotFoundError:
            ours = "0"
        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=self.terminals,
            # plan: the agent may send plan_update / plan_removed (codex-acp 2.6 then sends Codex's
            # proposed plan as a Markdown plan, not as message text); plan_review.py shows it
            plan=PlanCapabilities(),
            elicitation=ElicitationCapabilities(
                form=ElicitationFormCapabilities() if self.form_elicitation else None,
                url=ElicitationUrlCapabilities() if self.elicitation else None,
            )
            if self.form_elicitation or self.elicitation
            else None,
        )
        try:
            self.info = await asyncio.wait_for(
                self._conn.initialize(
                    protocol_version=acp.PROTOCOL_VERSION,
                    client_capabilities=capabilities,
                    client_info=Implementation(name=CLIENT_NAME, title="codex_nb", version=ours),
                ),
                self.startup_timeout,
            )
        except BaseException as err:
            message = await self._describe_failure(err, "initialize")
            await self.aclose()
            if isinstance(err, asyncio.CancelledError):
                raise
            raise AcpError(message) from None

    # -- sessions ----------------------------------------------------------------------------
    async def new_session(self, cwd: str | Path | None = None, *, mcp_servers: Sequence[Any] = ()) -> AcpSession:
        """``session/new`` in ``cwd`` (default: the current directory); authenticates if demanded."""
        where = _directory(cwd)
        await self.start(where)
        response = await self._authenticated(
            lambda: self._conn.new_session(cwd=where, mcp_servers=list(mcp_servers)), "session/new"
        )
        return self._register(AcpSession(self, response.session_id, where, response=response))

    async def load_session(
        self,
        session_id: str,
        cwd: str | Path | None = None,
        *,
        mcp_servers: Sequence[Any] = (),
        on_replay: Callable[[Event], object] | None = None,
    ) -> AcpSession:
        """``session/load``: resume a past session; the agent replays it as events. ``on_replay`` is
        called with each event of that replay: subscribed before ``session/load`` is sent, removed
        once it answers (a widget made after the load sees only the last plan, ``latest_plan()``)."""
        where = _directory(cwd)
        await self.start(where)
        if not getattr(self.info.agent_capabilities, "load_session", False):
            raise AcpError(
                f"the ACP agent {self.command} cannot load sessions (its loadSession capability is off); "
                f"start a new one with agent.new_session()"
            )
        session = AcpSession(self, session_id, where)
        unsubscribe = None if on_replay is None else session.subscribe(on_replay)
        self._register(session)
        try:
            session.response = await self._authenticated(
                lambda: self._conn.load_session(cwd=where, session_id=session_id, mcp_servers=list(mcp_servers)),
                "session/load",
            )
            # the replay is over with the response: its last message is not held for the next prompt
            session._flush_message()
        except BaseException:
            self.sessions.pop(session_id, None)
            raise
        finally:
            if unsubscribe is not None:
                unsubscribe()
        return session

    async def list_sessions(
        self,
        cwd: str | Path | None = None,
        *,
        max_pages: int = 20,
        limit: int = LIST_LIMIT,
        budget: float = LIST_BUDGET,
    ) -> SessionListing:
        """``session/list``: the sessions the agent keeps (for ``cwd`` when given), newest first as it
        answers, each ``{session_id, cwd, title, updated_at}``; page after page until the agent's
        cursor ends, ``limit`` rows were read, ``max_pages`` pages or ``budget`` seconds were spent
        (``SessionListing.stopped`` says which). A first page that does not come within ``budget``
        is an ``AcpError``. An agent whose ``sessionCapabilities.list`` is off gets an ``AcpError``
        saying so."""
        if limit < 1 or max_pages < 1 or not budget > 0:
            raise ValueError(
                f"list_sessions needs limit >= 1, max_pages >= 1 and budget > 0 seconds, "
                f"got limit={limit!r}, max_pages={max_pages!r}, budget={budget!r}"
            )
        await self.start(_directory(None))
        capabilities = getattr(self.info.agent_capabilities, "session_capabilities", None)
        if getattr(capabilities, "list", None) is None:
            raise AcpError(
                f"the ACP agent {self.command} does not list its sessions (its sessionCapabilities.list "
                f"is off); resume one you know with agent.load_session(session_id)"
            )
        where = None if cwd is None else os.path.abspath(str(cwd))  # noqa: ASYNC240  a filter, no I/O
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        deadline = time.monotonic() + budget
        for pages in range(max_pages):
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                page = await asyncio.wait_for(
                    self._authenticated(
                        lambda after=cursor: self._conn.list_sessions(cwd=where, cursor=after), "session/list"
                    ),
                    left,
                )
            except TimeoutError:
                if pages == 0:
                    raise AcpError(
                        f"the ACP agent {self.command} did not answer session/list within {budget:g} s; "
                        f"try again, or pass a larger budget= to list_sessions"
                    ) from None
                return SessionListing(found, stopped="time", pages=pages, budget=budget)
            found += [
                {"session_id": s.session_id, "cwd": s.cwd, "title": s.title, "updated_at": s.updated_at}
                for s in page.sessions[: limit - len(found)]
            ]
            cursor = page.next_cursor
            if not cursor:
                return SessionListing(found, stopped=None, pages=pages + 1, budget=budget)
            if len(found) >= limit:
                return SessionListing(found, stopped="limit", pages=pages + 1, budget=budget)
        return SessionListing(found, stopped="pages", pages=max_pages, budget=budget)

    async def fork_session(self, session_id: str, cwd: str | Path | None = None) -> AcpSession:
        """``session/fork``: a new session that starts from ``session_id``'s conversation."""
        return await self._derived("fork", "fork sessions", session_id, cwd)

    async def resume_session(self, session_id: str, cwd: str | Path | None = None) -> AcpSession:
        """``session/resume``: continue ``session_id`` without the agent replaying its history."""
        return await self._derived("resume", "resume sessions", session_id, cwd)

    async def _derived(self, capability: str, what: str, session_id: str, cwd: str | Path | None) -> AcpSession:
        where = _directory(cwd)
        await self.start(where)
        self._require_capability(capability, what)
        call = self._conn.fork_session if capability == "fork" else self._conn.resume_session
        response = await self._authenticated(lambda: call(session_id=session_id, cwd=where), f"session/{capability}")
        new_id = getattr(response, "session_id", None) or session_id
        return self._register(AcpSession(self, new_id, where, response=response))

    def _require_capability(self, name: str, what: str) -> None:
        sessions = getattr(self.info.agent_capabilities, "session_capabilities", None)
        if getattr(sessions, name, None) is None:
            raise AcpError(
                f"the ACP agent {self.command} cannot {what} (it does not offer sessionCapabilities.{name}); "
                f"start a new one with agent.new_session()"
            )

    def _register(self, session: AcpSession) -> AcpSession:
        self.sessions[session.session_id] = session
        updates, dropped = self._client.take_early(session.session_id)
        for update in updates:
            session.handle_update(update)
        if dropped:
            session.emit(
                WarningEvent(
                    message=f"the ACP agent sent {len(updates) + dropped} updates for this session "
                    f"before session/new answered; the first {len(updates)} were kept, "
                    f"{dropped} dropped"
                )
            )
        return session

    async def _authenticated(self, call: Any, method: str) -> Any:
        from acp import RequestError

        try:
            return await self._call(call(), method)
        except RequestError as err:
            if err.code != AUTH_REQUIRED:
                raise AcpError(f"the ACP agent refused {method}: {err} ({err.code}){_data(err)}") from None
        await self._authenticate(method)
        try:
            return await self._call(call(), method)
        except RequestError as err:
            raise AcpError(
                f"the ACP agent refused {method} after authenticating: {err} ({err.code}){_data(err)}"
            ) from None

    async def _authenticate(self, method: str) -> None:
        from acp import RequestError

        methods = list(getattr(self.info, "auth_methods", None) or [])
        for candidate in methods:
            variables = getattr(candidate, "vars", None)
            if variables is None:
                continue
            if all(self.env.get(v.name) for v in variables if not getattr(v, "optional", False)):
                try:
                    await self._call(self._conn.authenticate(method_id=candidate.id), "authenticate")
                except RequestError as err:
                    raise AcpAuthError(
                        f"the ACP agent rejected authentication with {candidate.id!r} "
                        f"({candidate.name}): {err}{_data(err)}; check the value of "
                        f"{', '.join(v.name for v in variables)}"
                    ) from None
                return
        lines = []
        for candidate in methods:
            variables = getattr(candidate, "vars", None)
            if variables is not None:
                how = (
                    "set "
                    + " and ".join(v.name for v in variables if not getattr(v, "optional", False))
                    + " in AcpAgent(env=...) or the kernel's environment"
                )
            else:
                how = "not supported here (it needs an interactive login: sign in with the agent's own CLI first)"
            lines.append(f"  - {candidate.name} ({candidate.id}): {how}")
        listing = "\n".join(lines) or "  (the agent lists no authentication methods)"
        raise AcpAuthError(
            f"the ACP agent {self.command} requires authentication for {method} and no "
            f"environment-variable method can be used:\n{listing}"
        )

    async def _call(self, awaitable: Awaitable[Any], method: str) -> Any:
        from acp import RequestError

        try:
            return await awaitable
        except RequestError:
            raise
        except Exception as err:  # noqa: BLE001 - the agent is gone or broke the protocol
            raise AcpError(await self._describe_failure(err, method)) from None

    # -- failures, malformed input, exit ------------------------------------------------------
    async def _describe_failure(self, err: BaseException, method: str) -> str:
        from acp import RequestError

        if isinstance(err, RequestError):
            return f"the ACP agent answered {method} with error {err.code}: {err}{_data(err)}"
        code = await self.process.wait_exit(2.0) if self.process is not None else None
        failure = self._replay_failure()
        if failure is not None:
            self._exit_reported = True
            return f"{method} failed: {failure}"
        if isinstance(err, asyncio.TimeoutError):
            head = f"the ACP agent {self.command} did not answer {method} within {self.startup_timeout} s"
        elif code is not None:
            head = f"the ACP agent {self.command} {describe_exit(code)} during {method}"
            self._exit_reported = True  # the failed call says it; no second warning from _watch
        else:
            head = f"{method} failed: {type(err).__name__}: {err}"
        tail = self.stderr_tail()
        return f"{head}; last stderr lines:\n{tail}" if tail else f"{head} (it wrote nothing to stderr)"

    def _on_malformed(self, what: str) -> None:
        self.malformed.append(what)
        text = f"the ACP agent sent a malformed message, which was ignored: {what}"
        for session in list(self.sessions.values()):
            session.emit(WarningEvent(message=text))

    async def _watch(self) -> None:
        assert self.process is not None
        code = await self.process.wait_exit(float("inf"))
        if not self._closing:
            await self._save_recording()
        if self._closing or self._exit_reported:
            return
        message = f"the ACP agent {self.command} {describe_exit(code)}"
        tail = self.stderr_tail()
        message += f"; last stderr lines:\n{tail}" if tail else ""
        failure = self._replay_failure()
        if failure is not None:
            message = str(failure)
        log.warning(message)
        for session in list(self.sessions.values()):
            session._agent_gone(message + "; create a new cx.AcpAgent to continue")

    def _replay_failure(self) -> CassetteError | None:
        process = None if self.process is None else self.process.process
        failure = getattr(process, "replay_failure", None)
        return failure if isinstance(failure, CassetteError) else None

    @property
    def replaying(self) -> bool:
        """True when this agent replays a cassette (no agent process runs)."""
        return self.cassette is not None and self.cassette.replaying

    async def _save_recording(self) -> None:
        recorder = None if self.cassette is None else self.cassette.recorder
        if recorder is None or self.process is None:
            return
        try:
            await recorder.save()
        except CassetteError as err:
            log.error("%s", err)
            self.cassette_error = err

    def can_close_sessions(self) -> bool:
        """Whether ``session/close`` can be sent now: the agent runs, and a replayed cassette recorded it
        (one recorded before codex_nb closed sessions ends without it, and still replays)."""
        if self._conn is None or self.process is None or self.process.returncode is not None:
            return False
        return self.cassette is None or not self.cassette.replaying or self.cassette.recorded("session/close")

    def _require_running(self) -> None:
        if self._closing:
            raise AcpError(f"this AcpAgent ({self.command}) was closed; create a new one")
        if self.process is not None and self.process.returncode is not None:
            raise AcpError(
                f"the ACP agent {self.command} {describe_exit(self.process.returncode)}; create a new "
                f"cx.AcpAgent to continue. Last stderr lines:\n{self.stderr_tail()}"
            )

    def _connection(self) -> Any:
        if self._conn is None:
            raise AcpError("the ACP agent is not started; call await agent.new_session(cwd) first")
        return self._conn

    def _spawn(self, coro: Any, *, name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- closing ----------------------------------------------------------------------------------
    async def aclose(self) -> None:
        """End every prompt, close the connection and end the agent's process group."""
        if self._closing and self.process is None:
            return
        self._closing = True
        # every session at once: each waits at most its CLOSE_TIMEOUT for the agent's session/close answer
        await asyncio.gather(*(session.aclose() for session in list(self.sessions.values())))
        if self._conn is not None:
            try:
                await asyncio.wait_for(self._conn.close(), 5.0)
            except Exception as err:  # noqa: BLE001
                log.info("closing the ACP connection: %s", err)
        if self.process is not None:
            await self.process.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._save_recording()
        if self.cassette_error is not None:
            raise self.cassette_error

    async def __aenter__(self) -> AcpAgent:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = (
            "not started"
            if self.process is None
            else ("running" if self.running else describe_exit(self.process.returncode))
        )
        return f"<AcpAgent {self.command} {state}>"


def _directory(cwd: str | Path | None) -> str:
    where = os.path.abspath(str(cwd) if cwd is not None else os.getcwd())
    if not os.path.isdir(where):
        raise AcpError(f"the session directory {where} does not exist; create it or pass another cwd")
    return where


def _data(err: Any) -> str:
    data = getattr(err, "data", None)
    return f" ({data})" if data else ""
