"""``Session``: one thread, its registry, event bus, history and turns (the composition root).

The session builds every service once and hands each one in where it is used: the
planner gets Code Mode as its finalizer, every turn's ``TurnContext`` gets the bus,
hooks, records, frontend broker and plan revision counter. It offers the notebook API:
``call_tool`` for direct exploration, ``run_turn`` / ``start_turn`` for scripted
turns, ``subscribe`` / ``events`` for consumers, ``tool`` to register Python
functions. Turns run as asyncio tasks on the running loop (in Jupyter: the kernel's),
so a cell that starts one returns at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._start_gate import StartGate
from ..code_mode.planning import CodeModeFinalizer
from ..config import Config
from ..errors import ToolCallError, TurnError
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..events.turn_log import TurnEventLog
from ..frontend.requests import FrontendRequests
from ..hooks.engine import HookEngine
from ..hooks.session_api import SessionHooksMixin
from ..protocol.capabilities import Capabilities, Sent
from ..protocol.ids import random_uuid
from ..protocol.events import Event
from ..protocol.model import Model
from ..protocol.model_stream import TokenUsage
from ..protocol.wire import dumps
from ..tools.builtins import builtin_tools
from ..tools.calls import run_call
from ..tools.cancellation import CancelSource, CancelToken
from ..tools.tool_errors import Fatal
from ..tools.handlers.clock import CurrentTimeReminder
from ..tools.handlers.seed_tools import image_gen_enabled, web_run_enabled
from ..tools.hook_points import ToolHooks
from ..tools.invocation import ModeKind, TurnContext
from ..tools.lifecycle import ControlToolCallFact, LifecycleRecord
from ..tools.names import ToolName
from ..tools.payload import Payload, PayloadKind, ToolCall
from ..tools.pipeline import CallResult
from ..tools.context_window import ContextWindow
from ..tools.handlers.tool_search import ToolSearchFinalizer
from ..tools.planner import ToolPlan, ToolPlanner
from ..tools.registry import ToolRegistry
from .history import PairingTracker

if TYPE_CHECKING:
    from ..mcp.manager import McpServers
    from ..tools.notebook.mcp_server import NotebookMcpServer
from .. import _front_end
from .._interrupt import await_interruptibly
from .call_records import DEFAULT_RECORD_LIMIT, CallRecords


def wire_provider_routes(registry: ToolRegistry, config: Config) -> None:
    """Point web.run / image_gen.imagegen at the config's provider (the route Codex uses)."""
    if not (web_run_enabled(config) or image_gen_enabled(config)):
        return  # neither is declared (their gates are the config's), so nothing to route
    from ..tools.handlers.image_gen import ImageGenTool
    from ..tools.handlers.web_run import WebRunTool

    tools = [r.tool for n in registry.names() if (r := registry.get(n)) is not None]
    seed = [t for t in tools if isinstance(t, (WebRunTool, ImageGenTool))]
    if not seed:
        return
    from ..responses.tool_routes import provider_route  # only sessions that declare them pay for it

    route = provider_route(config.extra if isinstance(config.extra, dict) else {})
    for tool in seed:
        tool.backend = route


from .turn import TurnResult, TurnRunner, UsageTally

INTERRUPT_GRACE_SECONDS = 0.1  # GRACEFULL_INTERRUPTION_TIMEOUT_MS
ABORT_REASONS = ("interrupted", "replaced", "review_ended", "budget_limited")


@dataclass(kw_only=True)
class CallToolResult:
    """What ``Session.call_tool`` returns."""

    call_id: str
    output: str
    success: bool | None
    item: dict[str, Any] | None
    events: list[Event] = field(default_factory=list)
    result: CallResult | None = None


_DEFAULT_MODE = ModeKind.DEFAULT  # an enum member read through its class costs a lookup on every call


def _mode(mode: str | ModeKind) -> ModeKind:
    if mode == "default":  # the common case, without the enum's lookup machinery
        return _DEFAULT_MODE
    try:
        return ModeKind(mode)
    except ValueError:
        raise TurnError(f"mode must be 'default' or 'plan', got {mode!r}") from None


class TurnHandle:
    """A running turn. ``await handle`` gives its ``TurnResult``; ``interrupt()`` stops it."""

    def __init__(self, session: Session, turn: TurnContext, task: asyncio.Task[TurnResult]) -> None:
        self.session = session
        self.turn = turn
        self.task = task
        self.hard_aborted = False
        """True if the grace period ran out and the turn task was cancelled (Codex waits 100 ms)."""

    @property
    def turn_id(self) -> str:
        return self.turn.turn_id

    def done(self) -> bool:
        return self.task.done()

    def interrupt(self, reason: str = "interrupted") -> bool:
        """Cancel the turn (first-party). Safe from any thread; never blocks.

        Returns True if this call started the interruption, False if the turn had
        already finished or was already interrupted (a second ``interrupt()`` is a
        no-op, not an error). In-flight calls get 100 ms to produce their aborted
        outputs; after that the turn task is hard-aborted and history repair pairs
        whatever is left. ``await handle`` gives the ``interrupted`` result.
        """
        if reason not in ABORT_REASONS:
            raise TurnError(f"interrupt reason must be one of {', '.join(ABORT_REASONS)}; got {reason!r}")
        if self.task.done():
            return False
        if not self.turn.cancel.cancel(reason, CancelSource.FIRST_PARTY):
            return False
        try:
            self.task.get_loop().call_soon_threadsafe(self._schedule_hard_abort)
        except RuntimeError:  # the loop is closed: the task can never run again
            return False
        return True

    def _schedule_hard_abort(self) -> None:
        if self.task.done():
            return
        timer = self.task.get_loop().call_later(INTERRUPT_GRACE_SECONDS, self._hard_abort)
        self.task.add_done_callback(lambda _: timer.cancel())

    def _hard_abort(self) -> None:
        if not self.task.done():
            self.hard_aborted = True
            self.task.cancel("hard abort after the interrupt grace period")

    def steer(self, text: str) -> None:
        """Add user input to the running turn (Codex ``turn/steer``); safe from any thread.

        The input is recorded before the turn's next model request, and a running
        ``clock.sleep`` ends at once with ``Sleep interrupted by new input.``
        """
        if not isinstance(text, str):
            raise TurnError(f"steer() takes the user's text (str), got {type(text).__name__}")
        if self.task.done() or self.turn.cancel.cancelled:
            raise TurnError(
                f"turn {self.turn_id} has already ended or been interrupted; start a new turn with this input instead"
            )
        self.turn.pending_input.push(text)

    def unread_input(self) -> bool:
        """True while input steered into this turn waits to be read (the next model request takes it)."""
        return self.turn.pending_input.pending

    def take_unread_input(self) -> list[str]:
        """Take the steered input this turn never read (it ended first), oldest first: the caller
        sends it as the next turn (``Capabilities.hands_back_unread``)."""
        return self.turn.pending_input.drain()

    def __await__(self) -> Generator[Any, None, TurnResult]:
        if self.task.done():
            return self.task.__await__()
        # the kernel's interrupt button stops the turn as Stop does (see codex_nb._interrupt)
        return await_interruptibly(self.task, interrupt=self.interrupt, what=f"turn {self.turn_id}").__await__()

    def __repr__(self) -> str:
        state = "done" if self.task.done() else "running"
        return f"<TurnHandle {self.turn_id} {state}>"


def _session_servers(session: Session) -> McpServers | None:
    """The config's MCP servers (the MCP modules load only when a config names one)."""
    extra = session.config.extra
    if not isinstance(extra, dict) or not extra.get("mcp_servers"):
        return None
    from ..mcp.startup import session_servers

    return session_servers(session)


SESSION_CAPABILITIES = Capabilities(
    agent="codex_nb's runtime",
    runs_turns=True,
    mid_turn="steer",
    hands_back_unread=True,
    needs_model=True,
    modes=("default", "plan"),
    answers=True,
    interrupt=True,
    usage=True,
    tool_lifecycle=True,
    tool_plan=True,
    hooks=True,
)
"""What every ``cx.Session`` offers (its tools and config decide the rest)."""


class Session(BusEventSource, SessionHooksMixin):
    """One conversation thread: the composition root of its registry, bus, hooks, history and turns.

    Implements ``events.source.EventSource`` and ``cx.AgentSource``. Use it as ``async with cx.Session() as s:``
    or call ``await s.aclose()`` to end command hooks, Code Mode cells, pending
    frontend requests and the active turn. ``run_turn`` runs a turn to its end; in a notebook,
    ``start_turn`` returns a handle at once and the turn runs in the background while the widgets
    (``cx.PlanChecklist(session)``, ``cx.PromptsWidget(session)``, ``cx.TurnControls(session)``)
    follow it.

    ```pycon
    >>> import asyncio, codex_nb as cx
    >>> session = cx.Session()  # the notebook profile: update_plan is on
    >>> checklist = cx.PlanChecklist(session)  # display it in a notebook cell
    >>> plan = {"plan": [{"step": "Fix it", "status": "in_progress"}]}
    >>> model = cx.ScriptedModel([[cx.function_call("update_plan", plan)], [cx.assistant_message("done")]])
    >>> result = asyncio.run(session.run_turn("fix the bug", model=model))
    >>> result.status, result.last_agent_message
    ('completed', 'done')
    >>> print(checklist.text())
    • Updated Plan
      └ □ Fix it
    >>> checklist.close()

    ```
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        cwd: str | None = None,
        thread_id: str | None = None,
        hooks: ToolHooks | None = None,
        record_limit: int = DEFAULT_RECORD_LIMIT,
        mcp_servers: bool = True,
    ) -> None:
        self.config = config if config is not None else Config()
        self.thread_id = thread_id or str(uuid.uuid4())
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.bus = EventBus(self.thread_id)
        self.records = CallRecords(self.bus, limit=record_limit)
        """Lifecycle records and control-tool facts: the latest ``record_limit`` of each."""
        self.registry = ToolRegistry()
        self.code_mode = CodeModeFinalizer()
        """Code Mode's planner part; it owns this session's cells (the V8 host thread starts on first use)."""
        self.planner = ToolPlanner(self.registry, self.config, finalizers=[self.code_mode, ToolSearchFinalizer()])
        self.context_window = ContextWindow()
        """Token usage, new_context and the deferred namespaces the model was told about (one window at a time)."""
        self.hooks: ToolHooks = hooks if hooks is not None else HookEngine.from_config(self.config)
        self.history: list[dict[str, Any]] = []
        self.usage = UsageTally()
        """This thread's token usage (models that report it): ``token_usage`` and ``last_token_usage``."""
        self.pairing = PairingTracker()
        self.next_plan_revision = itertools.count(1).__next__
        """Per-thread, monotonic revision of ``plan_update`` events."""
        self._active: TurnHandle | None = None
        self._start_gate = StartGate()
        self._closed = False
        self.frontend_requests = FrontendRequests()
        self.time_reminder = CurrentTimeReminder(self.config)
        for tool in builtin_tools(self.config):
            self.registry.register(tool, source="builtin")
        wire_provider_routes(self.registry, self.config)
        self.workspace: Any = None
        """The notebook tools' shared state (a ``NotebookWorkspace``) when ``[codex_nb.notebook_tools]`` turns
        them on, else None; its document is the live notebook (``workspace.set_document`` to change it)."""
        self._notebook_servers: list[NotebookMcpServer] = []
        if self.config.notebook_tools.enabled:  # loaded only then: a first Session stays light
            from ..tools.notebook import NotebookWorkspace, notebook_tools

            self.workspace = NotebookWorkspace(self.config.notebook_tools)
            for tool in notebook_tools(self.config, self.workspace):
                self.registry.register(tool, source="notebook")
            # the document tools reach the page through the bridge widget, made on first use
            self.workspace.set_document(self._live_document)
        self.mcp_servers: McpServers | None = _session_servers(self) if mcp_servers else None
        """The config's ``[mcp_servers]``, started at session start as Codex starts a thread's (in the
        background when a loop runs, else by the first turn); ``mcp_servers=False`` leaves them to
        ``McpServers.attach``. Each turn waits for the startup (bounded by ``startup_timeout_sec``)."""
        self._mcp_start: asyncio.Task[None] | None = None
        if self.mcp_servers is not None:
            with contextlib.suppress(RuntimeError):  # no running loop: the first turn starts them
                self._mcp_start = asyncio.get_running_loop().create_task(self._start_mcp(self.mcp_servers))

    async def _start_mcp(self, manager: McpServers) -> None:
        from ..mcp.startup import start_session_servers

        await start_session_servers(self, manager)

    def replace_mcp_servers(self, manager: McpServers) -> None:
        """``McpServers.attach`` with explicit servers, before the session's own startup began."""
        if self._mcp_start is not None and not self._mcp_start.done():
            self._mcp_start.cancel()
        self._mcp_start = None
        self.mcp_servers = manager

    async def mcp_ready(self) -> None:
        """Wait for the session-start MCP startup (starting it when the session was made without a loop)."""
        manager = self.mcp_servers
        if manager is None:
            return
        if self._mcp_start is None and not manager.begun:
            self._mcp_start = asyncio.ensure_future(self._start_mcp(manager))
        if self._mcp_start is not None:
            await asyncio.shield(self._mcp_start)
        else:
            await manager.start()

    @property
    def answer_policy(self) -> Any:
        """Who answers request_user_input / request_permissions without a person: None (a prompts
        widget, else $CODEX_NB_ANSWER_POLICY, else fail fast), a cx.AnswerPolicy, a callable,
        'deny', 'recommended', a JSON file path or a list of scripted answers."""
        return self.frontend_requests.answer_policy

    @answer_policy.setter
    def answer_policy(self, value: Any) -> None:
        self.frontend_requests.answer_policy = value

    # -- consumers (EventSource) ------------------------------------------------------
    # -- records ----------------------------------------------------------------------
    @property
    def lifecycle_log(self) -> list[LifecycleRecord]:
        """Every tool call's ``start`` and ``finish`` records (the latest ``record_limit``), oldest
        first; a copy. ``on_lifecycle`` tells you about each as it is made."""
        return self.records.lifecycle_log

    @property
    def control_tool_facts(self) -> list[ControlToolCallFact]:
        """One fact per call of a builtin control tool (``update_plan``, ``request_user_input``,
        ``view_image``): its ids, times and status, never the plan's content, as Codex's control-tool
        analytics record it; the latest ``record_limit``, oldest first, a copy."""
        return self.records.control_tool_facts

    def on_lifecycle(self, fn: Callable[[LifecycleRecord], None]) -> Callable[[], None]:
        """Observe lifecycle start/finish records (a contributor); returns a remover.

        ``fn`` runs synchronously when the record is made; one that raises is
        detached and reported with a ``warning`` event (observers cannot veto)."""
        return self.records.on_lifecycle(fn)

    def on_control_tool_fact(self, fn: Callable[[ControlToolCallFact], None]) -> Callable[[], None]:
        """Observe ``ControlToolCallFact`` records as they are made; returns a remover."""
        return self.records.on_control_tool_fact(fn)

    # -- tools -----------------------------------------------------------------------
    def tool(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """Decorator: register a Python function as a function tool (``@session.tool`` or
        ``@session.tool(name=..., namespace=..., exposure=..., parallel=True)``)."""

        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            self.registry.register(func, source="user", **options)
            return func

        return register(fn) if fn is not None else register

    def set_handler(self, name: str, handler: Callable[[dict[str, Any]], Any] | None) -> None:
        """Answer ``web.run`` or ``image_gen.imagegen`` with ``handler(request)`` instead of the provider
        (None goes back to the provider). The tool must be declared: its gates are the config's."""
        registered = self.registry.get(name) if isinstance(name, str) else None
        tool = registered.tool if registered is not None else None
        from ..tools.handlers.image_gen import ImageGenTool
        from ..tools.handlers.web_run import WebRunTool

        if not isinstance(tool, (WebRunTool, ImageGenTool)):
            raise ToolCallError(
                f"set_handler takes web.run or image_gen.imagegen, and only when the config declares it; got {name!r} "
                f"(declared: {', '.join(self.registry.names())}). See docs/builtin-tools.md for each tool's gates."
            )
        tool.handler = handler

    def tool_plan(self, mode: str = "default") -> ToolPlan:
        """What one sampling step would see right now."""
        return self.planner.plan(_mode(mode))

    def _new_turn(self, mode: ModeKind, turn_id: str | None = None) -> TurnContext:
        """A turn wired to this session's services (each handed in, none fetched later)."""
        return TurnContext(
            turn_id=turn_id or random_uuid(),
            mode=mode,
            cancel=CancelToken(),
            thread_id=self.thread_id,
            cwd=self.cwd,
            config=self.config,
            events=self.bus,
            hooks=self.hooks,
            records=self.records,
            frontend=self.frontend_requests,
            next_plan_revision=self.next_plan_revision,
            model_slug=self.config.model_slug,
            started_at=time.time(),
            context_window=self.context_window,
            history=self.history,
        )

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | list[Any] | str | None = None,
        *,
        mode: str = "default",
        call_id: Any = None,
        namespace: str | None = None,
    ) -> CallToolResult:
        """Run one call through the full pipeline, outside any turn (no history is recorded)."""
        if not isinstance(name, str) or not name:
            raise ToolCallError(f"call_tool needs a tool name string, got {name!r}")
        if namespace is not None and not isinstance(namespace, str):
            raise ToolCallError(f"call_tool's namespace must be a string or None, got {namespace!r}")
        if isinstance(arguments, str) or arguments is None:
            text = "" if arguments is None else arguments
        else:
            try:
                text = dumps(arguments)
            except (TypeError, ValueError) as err:
                raise ToolCallError(
                    f"call_tool arguments must be JSON (dict, list or raw text): {err}; "
                    f"convert sets, bytes and other objects first"
                ) from None
        turn = self._new_turn(_mode(mode))
        plan = self.planner.plan(turn.mode)
        tool_name = self._resolve_name(plan, name, namespace)
        call_id = f"call_{os.urandom(6).hex()}" if call_id is None else call_id
        entry = plan.router.lookup(tool_name)
        kind: PayloadKind = "custom" if entry is not None and entry.tool.kind == "custom" else "function"
        if not isinstance(call_id, str):
            message = f"invalid call_id {call_id!r}: a call id must be a string"
            return CallToolResult(
                call_id=str(call_id),
                output=message,
                success=False,
                item={
                    "type": f"{'custom_tool' if kind == 'custom' else 'function'}_call_output",
                    "call_id": str(call_id),
                    "output": message,
                },
            )
        call = ToolCall(tool_name=tool_name, call_id=call_id, payload=Payload(kind, text))
        events: list[Event] = []
        unsubscribe = self.subscribe(lambda e: events.append(e) if e.turn_id == turn.turn_id else None)
        try:
            result = await run_call(call, turn, plan.router, entry=entry)
        except Fatal as err:
            return CallToolResult(
                call_id=call_id, output=f"Fatal error: {err.message}", success=False, item=None, events=events
            )
        finally:
            unsubscribe()
        return CallToolResult(
            call_id=call_id, output=result.text, success=result.success, item=result.item, events=events, result=result
        )

    @staticmethod
    def _resolve_name(plan: ToolPlan, name: str, namespace: str | None) -> ToolName:
        if namespace is not None or "." not in name:
            return ToolName.of(name, namespace)
        dotted_ns, _, bare = name.rpartition(".")
        dotted = ToolName.of(bare, dotted_ns)
        return dotted if plan.router.lookup(dotted) is not None else ToolName.of(name)

    # -- turns -----------------------------------------------------------------------
    def _release(self, handle: TurnHandle) -> None:
        """A finished turn's handle (and its result) is the caller's: the session lets go of it."""
        if self._active is handle:
            self._active = None

    @property
    def token_usage(self) -> TokenUsage | None:
        """Token usage summed over every response of this thread."""
        return self.usage.total

    @property
    def last_token_usage(self) -> TokenUsage | None:
        """Usage of this thread's latest response: what its context window holds now."""
        return self.usage.last

    @property
    def active_turn(self) -> TurnHandle | None:
        """The handle of the turn running now, or None (also once it has ended). One turn runs at a
        time: ``start_turn`` raises ``TurnError`` while this is set."""
        return self._active if self._active is not None and not self._active.done() else None

    def start_turn(self, user_text: str, *, model: Model, mode: str = "default") -> TurnHandle:
        """Start a turn as a background task on the running loop and return at once."""
        if not isinstance(user_text, str):
            raise TurnError(f"user_text must be a str, got {type(user_text).__name__}")
        if not hasattr(model, "sample"):
            raise TurnError(
                f"model must have an async sample(request) method (e.g. cx.ScriptedModel), got {type(model).__name__}"
            )
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise TurnError(
                "start_turn() needs a running asyncio loop: call it from a notebook cell or an "
                "async function (use `await session.run_turn(...)` in scripts)"
            ) from None
        with self._start_gate.claim(self._start_refusal):
            turn = self._new_turn(_mode(mode))
            self.code_mode.terminate_cells_on_cancel(turn)
            runner = TurnRunner(
                turn=turn,
                model=model,
                user_text=user_text,
                planner=self.planner,
                history=self.history,
                pairing=self.pairing,
                usage=self.usage,
                time_reminder=self.time_reminder,
            )
            handle = TurnHandle(self, turn, asyncio.ensure_future(self._run_collecting(runner, turn.turn_id)))
            self._active = handle
            handle.task.add_done_callback(lambda _: self._release(handle))
        return handle

    def _start_refusal(self, starting: bool) -> TurnError | None:
        """Why ``start_turn`` may not start now (closed, a turn running or being started), or None."""
        if self._closed:
            return TurnError("this session is closed (aclose() ran); create a new cx.Session() for another turn")
        active = self.active_turn
        if active is None and not starting:
            return None
        return TurnError(
            f"turn {active.turn_id if active is not None else '(starting)'} is still running on this "
            f"session; await it or call handle.interrupt() before starting another"
        )

    async def _run_collecting(self, runner: TurnRunner, turn_id: str) -> TurnResult:
        """The turn, with its events on the result whether it was awaited or started in the background."""
        log = TurnEventLog()
        unsubscribe = self.subscribe(lambda e: log.append(e) if e.turn_id == turn_id else None)
        try:
            await self.mcp_ready()  # Codex's first sampling step sees the servers that came up
            result = await runner.run()
        finally:
            unsubscribe()
        result.events, result.dropped_deltas = log.events, log.dropped_deltas
        return result

    async def run_turn(self, user_text: str, *, model: Model, mode: str = "default") -> TurnResult:
        """Run a whole turn and return its result (events included)."""
        return await self.start_turn(user_text, model=model, mode=mode)

    def steer(self, text: str) -> None:
        """Add user input to the running turn (see ``TurnHandle.steer``; ``send_during_turn`` is the
        same, under the name every source shares)."""
        self.send_during_turn(text)

    def send_during_turn(self, text: str) -> Sent:
        """Steer ``text`` into the running turn (``cx.AgentSource``'s verb; see ``TurnHandle.steer``):
        the turn's next model request reads it. Raises ``TurnError`` when no turn runs or it has ended."""
        active = self.active_turn
        if active is None:
            raise TurnError(
                "no turn is running on this session, so there is nothing to steer; start one with "
                "session.start_turn(text, model=...)"
            )
        active.steer(text)
        return Sent(how="steered", turn_id=active.turn_id)

    @property
    def capabilities(self) -> Capabilities:
        """What codex_nb's runtime offers (``cx.Capabilities``): it steers, needs a model to start a
        turn, runs Plan mode, asks questions and approvals, reports its tools and usage."""
        return SESSION_CAPABILITIES

    def interrupt(self, reason: str = "interrupted") -> bool:
        """Interrupt the running turn, if any (the Stop control calls this).

        Returns False when no turn is running or it is already being interrupted."""
        active = self.active_turn
        return active.interrupt(reason) if active is not None else False

    # -- closing ----------------------------------------------------------------------
    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def closed(self) -> bool:
        """True once ``aclose()`` began (or the ``async with`` block ended): the session takes no
        more turns."""
        return self._closed

    def _live_document(self) -> Any:
        if _front_end.live_document is None:
            from ..tools.notebook.document import NO_FRONT_END, DocumentUnavailable

            raise DocumentUnavailable(NO_FRONT_END)
        return _front_end.live_document(self.config.notebook_tools.frontend_timeout_seconds)

    async def serve_notebook_tools(self, *, max_calls: int = 8, max_requests: int = 32) -> NotebookMcpServer:
        """Start an MCP server (streamable HTTP on 127.0.0.1, a bearer token of its own) that serves
        this session's notebook tools to the real Codex or any MCP client; every call runs through
        this session's hooks and approvals. Pass ``server.env()`` and ``server.codex_config()`` to
        ``cx.CodexAppServer``; ``await server.aclose()`` stops it. ``max_calls``: tool calls running at
        once; ``max_requests``: HTTP requests in flight (a client's open event stream is one)."""
        from ..tools.notebook.mcp_server import NotebookMcpServer
        from ..tools.notebook.tools import notebook_tools

        async def dispatch(name: str, arguments: dict[str, Any]) -> Any:
            return await self.call_tool(f"notebook.{name}", arguments)

        server = await NotebookMcpServer(
            notebook_tools(self.config, self.workspace), dispatch, max_calls=max_calls, max_requests=max_requests
        ).start()
        self._notebook_servers.append(server)
        return server

    def share_prompts_with(self, source: Any) -> None:
        """Ask this session's approvals in ``source``'s prompts widget (a ``CodexThread``, say), so a
        notebook tool that Codex calls asks in the widget shown for that thread."""
        self.frontend_requests = source.frontend_requests

    async def aclose(self) -> None:
        """End everything this session started; idempotent.

        Stops the notebook MCP servers it started, interrupts the active turn and awaits its result,
        cancels pending frontend requests, stops async command hooks, terminates Code Mode cells (and
        the V8 host thread once no session uses it) and ends every ``events()`` iteration."""
        servers, self._notebook_servers = self._notebook_servers, []
        for server in servers:
            await server.aclose()
        if self._closed:
            return
        self._closed = True
        active = self.active_turn
        if active is not None:
            active.interrupt()
            with contextlib.suppress(BaseException):
                await asyncio.shield(active.task)
        self.frontend_requests.cancel_all()
        close_hooks = getattr(self.hooks, "aclose", None)
        if close_hooks is not None:
            await close_hooks()
        await self.code_mode.aclose()
        if self.mcp_servers is not None:
            if self._mcp_start is not None and not self._mcp_start.done():
                self._mcp_start.cancel()
                with contextlib.suppress(BaseException):
                    await self._mcp_start
            await self.mcp_servers.stop()
        self.bus.close()

    def __repr__(self) -> str:
        return f"<Session thread={self.thread_id} tools={len(self.registry)}>"
