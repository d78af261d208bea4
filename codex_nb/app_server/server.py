"""``CodexAppServer``: start ``codex app-server``, do the handshake, hand out threads.

::

    async with cx.CodexAppServer(codex_home=home) as server:
        thread = await server.start_thread(cwd=".")
        handle = thread.start_turn("make a plan")   # returns at once
        result = await handle                       # status, items, events

Notifications are routed to their thread by ``threadId``; server requests are answered
by the thread's prompts / answer policy. If the process dies, every running turn ends
``failed`` with the stderr tail, and later calls raise ``AppServerExited``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .binary import CodexVersionWarning, check_version, checked_binary, codex_binary, newer_release_note
from .app_server_errors import AppServerError, AppServerExited, AppServerRpcError
from .._process import ChildProcess
from ..errors import CassetteError
from ..cassettes.rpc_cassette import ReplayedProcess, RpcCassette
from .process import STREAM_LIMIT, spawn_app_server
from .rpc import DEFAULT_TIMEOUT, METHOD_NOT_FOUND, JsonRpcConnection
from .history_pages import PAGE_TURNS, ThreadHistory
from .thread import CodexThread
from .thread_verbs import SavedThreadVerbs
from .versions import FEATURES, features_of, missing_method

log = logging.getLogger("codex_nb.app_server")

CLIENT_NAME = "codex_nb"
DEFAULT_INTERRUPT_TIMEOUT = 10.0


def _client_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codex_nb")
    except PackageNotFoundError:
        return "0"


class CodexAppServer(SavedThreadVerbs):
    """One ``codex app-server`` subprocess and its JSON-RPC connection."""

    def __init__(
        self,
        *,
        binary: str | Path | None = None,
        codex_home: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        config: Mapping[str, Any] | None = None,
        args: Sequence[str] = (),
        cwd: str | Path | None = None,
        request_timeout: float = DEFAULT_TIMEOUT,
        interrupt_timeout: float = DEFAULT_INTERRUPT_TIMEOUT,
        validate: bool = False,
        cassette: str | os.PathLike[str] | None = None,
        record_mode: str = "once",
        cassette_filters: Any = None,
    ) -> None:
        self._binary = Path(binary) if binary is not None else None
        self.codex_home = Path(codex_home) if codex_home is not None else None
        self._env = dict(env) if env is not None else None
        self._config = dict(config or {})
        self._args = list(args)
        self._cwd = str(cwd) if cwd is not None else None
        self.request_timeout = request_timeout
        self.interrupt_timeout = interrupt_timeout
        """How long a Stop may wait for the interrupted turn to end before the server is killed."""
        self.validate = validate
        self.cassette: RpcCassette | None = None
        """The recorded conversation this server replays or records into (``cassette=``), or None."""
        if cassette is not None:
            self.cassette = RpcCassette(
                cassette,
                record_mode,
                who="codex app-server",
                env={**os.environ, **(self._env or {})},
                named={"codex_home": None if self.codex_home is None else str(self.codex_home)},
                filters=cassette_filters,
            )
        self.cassette_error: CassetteError | None = None
        """Why the recording could not be written (``close()`` raises it too)."""
        self.process: ChildProcess | ReplayedProcess | None = None
        self.connection: JsonRpcConnection | None = None
        self.threads: dict[str, CodexThread] = {}
        self.version: str | None = None
        """The binary's Codex version (``codex --version``; a cassette's recorded one), once started."""
        self._refused: set[str] = set()
        self.initialize_result: dict[str, Any] | None = None
        self.unrouted: list[tuple[str, dict[str, Any]]] = []
        """Notifications without a known thread (server-wide ones), newest last, bounded."""
        self.closed_error: AppServerError | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self._killed: str | None = None
        self._exit_task: asyncio.Future[None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop ``start()`` ran on (a thread exists only once the server started)."""
        if self._loop is None:
            raise AppServerError(
                "the app-server is not started; use `async with cx.CodexAppServer(...) as server` "
                "or `await server.start()` first"
            )
        return self._loop

    # -- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> CodexAppServer:
        """Spawn the server and do the ``initialize`` / ``initialized`` handshake."""
        if self.process is not None:
            return self
        self._loop = asyncio.get_running_loop()
        cassette = self.cassette
        proc: ChildProcess | ReplayedProcess
        if cassette is not None and cassette.replaying:
            proc = await self._replay(cassette)
        else:
            proc = await self._spawn()
        self.process = proc
        assert proc.stdout is not None and proc.stdin is not None
        validator = None
        if self.validate:
            from .schema import SchemaValidator

            validator = SchemaValidator()
        self.connection = JsonRpcConnection(
            proc.stdout,
            proc.stdin,
            on_notification=self._on_notification,
            on_request=self._on_request,
            on_closed=self._on_closed,
            stderr_tail=self.stderr_tail,
            returncode=lambda: proc.returncode,
            validator=validator,
            tape=None if cassette is None else cassette.recorder,
        )
        try:
            self.initialize_result = await self.request(
                "initialize",
                {
                    "clientInfo": {"name": CLIENT_NAME, "title": "codex_nb", "version": _client_version()},
                    "capabilities": {"experimentalApi": True},
                },
            )
            self.connection.notify("initialized")
        except BaseException:
            await self.close()
            raise
        return self

    async def _spawn(self) -> ChildProcess:
        # the file-system checks and `codex --version` stay off the event loop
        if self._binary is None:
            binary = await asyncio.to_thread(codex_binary)
        else:
            binary = await asyncio.to_thread(checked_binary, self._binary)
        self.version = await asyncio.to_thread(check_version, binary)
        note = newer_release_note(self.version)
        if note is not None:
            warnings.warn(CodexVersionWarning(note), stacklevel=2)
        if self.cassette is not None and self.cassette.recorder is not None:
            self.cassette.recorder.meta(codex_version=self.version)
        env = dict(os.environ if self._env is None else self._env)
        if self.codex_home is not None:
            env["CODEX_HOME"] = str(self.codex_home)
        args = [*self._args]
        for key, value in self._config.items():
            args += ["-c", f"{key}={_toml_value(value)}"]
        return await spawn_app_server(binary, args, env=env, cwd=self._cwd)

    async def _replay(self, cassette: RpcCassette) -> ReplayedProcess:
        """The recorded conversation instead of the binary (none is looked for)."""
        self.version = str(cassette.meta.get("codex_version") or "") or None
        if self.codex_home is not None:  # the rollouts Codex wrote, where it wrote them
            await asyncio.to_thread(cassette.restore_files, str(self.codex_home))
        return cassette.process(limit=STREAM_LIMIT)

    @property
    def replaying(self) -> bool:
        """True when this server replays a cassette (no Codex process runs)."""
        return self.cassette is not None and self.cassette.replaying

    async def __aenter__(self) -> CodexAppServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> int | None:
        """End the server and its process group; running turns end ``failed``. Idempotent."""
        self._closing = True
        process = self.process
        if process is None:
            return None
        code = await process.end(grace=3.0)
        if self.connection is not None:
            self.connection.abort(AppServerExited("codex app-server was closed", returncode=code, stderr_tail=""))
        if self._exit_task is not None:
            await self._exit_task
        if self.cassette_error is not None:
            raise self.cassette_error
        return code

    async def kill(self, reason: str) -> int | None:
        """End an unresponsive server now: SIGKILL to it and every command it runs. Running
        turns end ``failed`` with ``reason``; later calls raise ``AppServerExited``."""
        self._killed = reason
        process = self.process
        if process is None:
            return None
        code = await process.end(gentle=False)
        if self.connection is not None:
            self.connection.abort(AppServerExited(reason, returncode=code, stderr_tail=""))
        if self._exit_task is not None:
            await self._exit_task
        return code

    def check_open(self) -> None:
        """Raise unless requests can be sent: ``AppServerError`` before ``start()``, and once the
        connection closed the error that closed it (``AppServerExited`` with the stderr tail when the
        process died or was closed or killed). Threads call it before each turn."""
        if self.connection is None:
            raise AppServerError(
                "the app-server is not started; use `async with cx.CodexAppServer(...) as server` "
                "or `await server.start()` first"
            )
        if self.connection.closed is not None:
            raise self.closed_error or self.connection.closed

    @property
    def pid(self) -> int | None:
        """The ``codex app-server`` process id (it leads its own process group), or None before
        ``start()`` and when a cassette replays the server (no process exists then)."""
        return None if self.process is None else self.process.pid

    def stderr_tail(self, n: int = 20) -> str:
        """The server's last ``n`` stderr lines (ANSI colours removed, long lines cut), "" before
        ``start()``; what an ``AppServerExited`` error quotes when the process dies."""
        return "" if self.process is None else self.process.stderr.tail(n)

    # -- requests -----------------------------------------------------------------------------
    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """Any JSON-RPC request (the typed methods below cover threads and turns)."""
        self.check_open()
        assert self.connection is not None
        return await self.connection.request(method, params, timeout=timeout or self.request_timeout)

    async def start_thread(
        self, *, cwd: str | Path | None = None, config: Mapping[str, Any] | None = None, **params: Any
    ) -> CodexThread:
        """``thread/start``. ``config`` holds Codex config overrides (dotted keys, e.g.
        ``{"tools.update_plan.enabled": True}``); other params pass through in camelCase
        (``model``, ``approvalPolicy``, ``sandbox``, ``ephemeral``, ...)."""
        body = {**params, "cwd": str(Path(cwd or os.getcwd()).resolve())}  # noqa: ASYNC240  local cwd, no peer I/O
        if config is not None:
            body["config"] = dict(config)
        return self._adopt(await self.request("thread/start", body))

    async def resume_thread(
        self, thread_id: str, *, cwd: str | Path | None = None, config: Mapping[str, Any] | None = None, **params: Any
    ) -> CodexThread:
        """``thread/resume`` of a thread saved on disk (or rejoin a running one)."""
        return self._adopt(await self.request("thread/resume", _thread_body(thread_id, cwd, config, params)), mode=None)

    async def fork_thread(
        self, thread_id: str, *, cwd: str | Path | None = None, config: Mapping[str, Any] | None = None, **params: Any
    ) -> CodexThread:
        """``thread/fork``: a new thread holding a copy of ``thread_id``'s history (a saved or a
        running one); the original is left as it was. Raises ``CodexVersionError`` on a binary
        without ``thread/fork`` (``features["thread/fork"]``)."""
        source = self.threads.get(thread_id)  # a fork keeps its source's mode, known if it runs here
        mode = source.collaboration_mode if source is not None else None
        return self._adopt(
            await self.request_feature("thread/fork", _thread_body(thread_id, cwd, config, params)), mode=mode
        )

    async def list_threads(self, *, limit: int = 50, cursor: str | None = None, **params: Any) -> dict[str, Any]:
        """One page of ``thread/list``: the threads this Codex home holds, newest first, as the
        server answers (``data``: v2 ``Thread``s, ``nextCursor`` for the next page)."""
        body: dict[str, Any] = {**params, "limit": limit}
        if cursor is not None:
            body["cursor"] = cursor
        answer: dict[str, Any] = await self.request_feature("thread/list", body)
        return answer

    async def list_turns(
        self,
        thread_id: str,
        *,
        limit: int = PAGE_TURNS,
        cursor: str | None = None,
        sort_direction: str = "desc",
        items_view: str = "full",
    ) -> dict[str, Any]:
        """One page of ``thread/turns/list``: a saved or running thread's turns, newest first by
        default (``data``: v2 ``Turn``s, ``nextCursor`` for the next page), as the server answers.
        ``ThreadHistory`` (``history()``) pages them with bounds; this is the bare request."""
        body: dict[str, Any] = {
            "threadId": thread_id,
            "limit": limit,
            "sortDirection": sort_direction,
            "itemsView": items_view,
        }
        if cursor is not None:
            body["cursor"] = cursor
        answer: dict[str, Any] = await self.request_feature("thread/turns/list", body)
        return answer

    async def list_items(
        self,
        thread_id: str,
        *,
        turn_id: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        sort_direction: str = "desc",
    ) -> dict[str, Any]:
        """One page of ``thread/items/list``: a thread's items (of one turn with ``turn_id``), newest
        first by default (``data``: ``{turnId, item}``, ``nextCursor``), as the server answers."""
        body: dict[str, Any] = {"threadId": thread_id, "limit": limit, "sortDirection": sort_direction}
        if turn_id is not None:
            body["turnId"] = turn_id
        if cursor is not None:
            body["cursor"] = cursor
        answer: dict[str, Any] = await self.request("thread/items/list", body)
        return answer

    async def read_thread(self, thread_id: str, *, include_turns: bool = False) -> dict[str, Any]:
        """``thread/read``: a thread's metadata (``historyMode``, ``preview``, ``path``, ...) without
        loading it; ``include_turns=True`` is the whole read (every turn: slow on a long thread)."""
        answer: dict[str, Any] = await self.request(
            "thread/read", {"threadId": thread_id, "includeTurns": include_turns}
        )
        return answer

    def history(self, thread_id: str, **bounds: Any) -> ThreadHistory:
        """A ``ThreadHistory`` of ``thread_id`` (saved or running): ``await history.newest()`` reads
        its newest page, ``await history.older()`` the next older one. ``bounds``: ``page_size``,
        ``max_turns``, ``budget`` (seconds), ``items_view``."""
        return ThreadHistory(self, thread_id, **bounds)

    @property
    def features(self) -> dict[str, bool]:
        """What this binary offers, by feature name (``versions.FEATURES``: ``turn/steer``,
        ``thread/fork``, ``hooks notifications``, ...): from its version's row of the range's method
        table, less what the running server refused as unknown. Widgets hide what is False."""
        found = features_of(self.version)
        for feature, method in FEATURES.items():
            if method in self._refused:
                found[feature] = False
        return found

    async def request_feature(self, method: str, params: dict[str, Any]) -> Any:
        """``request`` for a method not every release may have: a known-missing one, or one the
        server answers as unknown, raises ``CodexVersionError`` (version, range, how to upgrade)."""
        feature = next((f for f, m in FEATURES.items() if m == method), None)
        if feature is not None and self.version is not None and not self.features[feature]:
            raise missing_method(method, self.version, "its release does not have it")
        try:
            return await self.request(method, params)
        except AppServerRpcError as err:
            if err.code != METHOD_NOT_FOUND and "unknown variant" not in err.server_message:
                raise
            self._refused.add(method)
            raise missing_method(method, self.version, f"it answered {err.server_message!r}") from None

    def _adopt(self, info: dict[str, Any], *, mode: str | None = "default") -> CodexThread:
        """The thread of a ``thread/start``, ``resume`` or ``fork`` answer. ``mode``: its collaboration
        mode, which the answer does not say (a new thread's is Default; None: not known)."""
        thread_id = info["thread"]["id"]
        thread = self.threads.get(thread_id)
        if thread is None:
            thread = self.threads[thread_id] = CodexThread(self, info, mode=mode)
            # Codex sends a new thread's first notifications (a fork's inherited token usage) before
            # it answers thread/start, fork or resume: they were kept unrouted, and belong to it.
            early = [(m, p) for m, p in self.unrouted if p.get("threadId") == thread_id]
            if early:
                self.unrouted = [(m, p) for m, p in self.unrouted if p.get("threadId") != thread_id]
                for method, params in early:
                    thread.on_notification(method, params)
        return thread

    # -- from the connection ---------------------------------------------------------------------
    def connection_respond(self, rpc_id: Any, result: Any, *, method: str) -> None:
        """Answer the server request ``rpc_id`` (a ``method`` request) with ``result``; with
        ``validate=True`` the result is checked against Codex's schema first (a mismatch is logged).
        Nothing is sent before ``start()``, or after the connection closed."""
        if self.connection is not None:
            self.connection.respond(rpc_id, result, method=method)

    def connection_respond_error(self, rpc_id: Any, code: int, message: str) -> None:
        """Answer the server request ``rpc_id`` with a JSON-RPC error (``code``, ``message``), as a
        thread does for a request it cannot serve. Nothing is sent before ``start()``, or after the
        connection closed."""
        if self.connection is not None:
            self.connection.respond_error(rpc_id, code, message)

    def _thread_of(self, params: dict[str, Any]) -> CodexThread | None:
        thread_id = params.get("threadId")
        return self.threads.get(thread_id) if isinstance(thread_id, str) else None

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        thread = self._thread_of(params)
        if thread is None:
            self.unrouted = [*self.unrouted[-199:], (method, params)]
            return
        thread.on_notification(method, params)

    def _on_request(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        thread = self._thread_of(params)
        if thread is None:
            assert self.connection is not None
            self.connection.respond_error(
                rpc_id, METHOD_NOT_FOUND, f"codex_nb has no thread {params.get('threadId')!r} for {method}"
            )
            return
        thread.server_requests.handle(rpc_id, method, params)

    def _on_closed(self) -> None:
        self._exit_task = asyncio.ensure_future(self._after_exit())

    async def _after_exit(self) -> None:
        """Let the process be reaped and stderr drain, so the error carries the last words."""
        process = self.process
        if process is not None:
            await process.wait(5)
            await process.stderr_drained()
        code = None if process is None else process.returncode
        failure = getattr(process, "replay_failure", None)
        why = self._killed or (
            "codex app-server was closed" if self._closing else "codex app-server exited unexpectedly"
        )
        status = "" if code is None else f" (exit status {code})"
        tail = "" if self._closing or self._killed else self.stderr_tail()
        if failure is not None:  # no process: the mismatch is the whole story
            why, status, tail = str(failure), "", ""
        error = AppServerExited(why + status, returncode=code, stderr_tail=tail)
        self.closed_error = error
        if process is not None and not (self._closing or self._killed):
            await process.end(grace=0.5)  # its supervisor may still be ending the tree
        for thread in list(self.threads.values()):
            thread.on_server_closed(error)
        await self._save_recording()

    async def _save_recording(self) -> None:
        recorder = None if self.cassette is None else self.cassette.recorder
        if recorder is None:
            return
        for thread in self.threads.values():
            if thread.path:
                recorder.keep_file(thread.path)
        try:
            await recorder.save()
        except CassetteError as err:
            log.error("%s", err)
            self.cassette_error = err

    def __repr__(self) -> str:
        state = (
            "not started"
            if self.process is None
            else ("closed" if self.connection is not None and self.connection.closed else f"pid {self.pid}")
        )
        return f"<CodexAppServer {state} threads={len(self.threads)}>"


def _thread_body(
    thread_id: str, cwd: str | Path | None, config: Mapping[str, Any] | None, params: dict[str, Any]
) -> dict[str, Any]:
    """The params of ``thread/resume`` and ``thread/fork``: the thread, an absolute cwd, config overrides."""
    body: dict[str, Any] = {**params, "threadId": thread_id}
    if cwd is not None:
        body["cwd"] = str(Path(cwd).resolve())
    if config is not None:
        body["config"] = dict(config)
    return body


def _toml_value(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value)  # strings and arrays of strings: JSON is valid TOML here
