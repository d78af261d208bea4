"""One ACP session as a codex_nb event source.

``AcpSession`` turns the agent's ``session/update`` stream into codex_nb events on an
``EventBus`` and keeps pending person-requests in ``FrontendRequests``, so the plan
checklist, the prompts widget and the Stop control work on it unchanged. ``prompt()``
runs ``session/prompt`` as a background task and returns an ``AcpTurnHandle`` at
once (the cell that owns a widget must never block); ``interrupt()`` sends
``session/cancel`` and, if the agent does not stop within ``cancel_grace`` seconds,
ends the turn locally. ``capabilities`` says what the agent offered (``cx.AgentSource``); an ACP
agent has no steering, so ``send_during_turn`` queues the person's words as the next prompt.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import itertools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from acp import text_block
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from .._start_gate import StartGate
from ..errors import AnswerError, TurnError
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..events.observers import Observers, observer_name
from ..frontend.answer_policy import route
from ..frontend.requests import FrontendRequests, Outcome, RequestKind
from ..protocol.capabilities import Capabilities, PlanDecision, PlanReview, SessionVerb, Sent
from ..protocol.events import (
    AgentMessage,
    ErrorEvent,
    Event,
    EventMsg,
    ItemCompleted,
    ItemStarted,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    WarningEvent,
)
from ..protocol.model_stream import TokenCount, TokenUsage, TokenUsageInfo
from ..protocol.frontend import FrontendRequestResolved
from ..tools.lifecycle import LifecycleRecord, ToolCallOutcome
from ..tools.names import ToolName
from . import quirks
from .acp_errors import AcpError
from .acp_turn import AcpTurnHandle, AcpTurnResult
from .draft_v2 import acknowledged
from .acp_events import (
    AcpCompaction,
    AcpOptionsUpdated,
    AcpNotice,
    AcpSubagent,
    AgentMessageDelta,
    AgentReasoningDelta,
    UserMessage,
)
from . import unstable_updates
from .elicitations import Elicitations
from .fs import ConfinedFiles
from .options import AgentOption, parse_options
from .port import AgentPort
from .mapping import (
    STOP_REASON_TEXT,
    PlanMapping,
    ToolCallState,
    content_text,
    context_token_count,
    plan_notes,
    prompt_usage,
    todo_plan,
    turn_status,
)
from .permissions import QUESTION_ID, choice_from, how_to_answer, question_event
from .plan_files import PlanFileError, PlanFolders, read_plan_file
from .plan_review import MarkdownPlans, ReviewRequest, decision_options, file_plan_review, plan_review_of
from .side_updates import SideUpdates
from .terminals import Terminals


log = logging.getLogger("codex_nb.acp.session")

TOOL_NAMESPACE = "acp"

RECORD_LIMIT = 10_000
"""Tool calls and lifecycle records kept per session (as ``Session`` keeps its records);
older ones are dropped and counted in ``records_dropped`` (observers still see every record)."""

DETAILS_TIMEOUT = 5.0
"""Seconds the paths of a permission request may take to be checked (a hung network mount) before
the question is asked without them, and says so."""

CLOSE_TIMEOUT = 3.0
"""Seconds ``aclose`` waits for the agent's answer to ``session/close`` (a hung agent does not hang it)."""

SET_OPTION_TIMEOUT = 30.0
"""Seconds ``set_option`` waits for the agent's answer to ``session/set_config_option``."""

_LATE_PREVIEW = 200
_PLAN_WARNINGS = 5
_UNSET = object()


class AcpSession(BusEventSource):
    """An ACP session; implements the event-source protocol (``thread_id``, ``subscribe``,
    ``latest_plan``, ``interrupt``, ``frontend_requests``) and ``cx.AgentSource``."""

    def __init__(self, agent: AgentPort, session_id: str, cwd: str, *, response: Any = None) -> None:
        self.agent = agent
        self.session_id = session_id
        self.cwd = cwd
        self.bus = EventBus(session_id)
        self._options: dict[str, AgentOption] = {}
        self._shown_options: list[dict[str, Any]] = []
        self.option_notes: tuple[str, ...] = ()
        """What was wrong with the agent's latest option list (dropped, cut or repeated options), one
        line each; each new list of notes is also shown as warnings."""
        self.current_mode: str | None = None
        self._response: Any = None
        self.frontend_requests = FrontendRequests()
        self.files = ConfinedFiles(cwd)
        self.terminals = Terminals(self.files, agent.env)
        self.tool_calls: dict[str, ToolCallState] = {}
        self._asked_calls: dict[str, Any] = {}
        """The ``toolCall`` of a permission request for a call not sent yet, by id (see request_permission)."""
        """The merged state of the latest ``RECORD_LIMIT`` tool calls, by call id."""
        self._lifecycle_ring: collections.deque[LifecycleRecord] = collections.deque(maxlen=RECORD_LIMIT)
        self.records_dropped = 0
        """Tool calls and lifecycle records dropped to stay within ``RECORD_LIMIT``."""
        self.late_updates = 0
        """Message chunks the agent sent after its prompt had ended: they belong to no turn."""
        self._after_prompt = False
        self._late_reported = False
        self._plan_notes: list[str] = []
        self._plans = PlanMapping()
        self.markdown_plans = MarkdownPlans()
        """The agent's Markdown plans by id (``plan_update`` of type markdown; ``plan_removed`` drops one)."""
        self._review: tuple[PlanReview, ReviewRequest, dict[str, str]] | None = None
        """The plan review waiting for a decision, its options and the question's label -> option id."""
        self._review_observers: Observers[None] = Observers(self._review_fault, what="a callable taking no arguments")
        self._todos_shown: dict[str, Any] = {}
        """The ``write_todos`` arguments last shown as the plan, by call id (a call is shown once)."""
        self._todos_unsent = False
        self.available_commands: list[dict[str, Any]] = []
        self.side_updates = SideUpdates(self)
        """The session's title, the agent's notices, compactions and subagents, as it last sent them."""
        self.usage: dict[str, Any] | None = None
        """The agent's latest ``usage_update`` as sent (``used``, ``size``, ``cost``)."""
        self.token_usage: TokenUsage | None = None
        """This session's token usage: the sum of its prompts' reported usage (None before any)."""
        self._active: AcpTurnHandle | None = None
        self._queued: list[str] = []
        """What ``send_during_turn`` queued during the running prompt (sent when it ends)."""
        self._queued_turn: asyncio.Future[AcpTurnHandle] | None = None
        self._start_gate = StartGate()
        self.closed = False
        self._lifecycle_observers: Observers[LifecycleRecord] = Observers(
            self._lifecycle_fault, what="a callable taking one lifecycle record"
        )
        self._turn_ids = itertools.count(1)
        self._request_keys = itertools.count(1)
        self._turn_id: str | None = None
        self._revision = 0
        self._message: list[str] = []
        self._message_kind: str | None = None
        self._message_id: str | None = None
        self._last_agent_message: str | None = None
        self._said: str | None = None
        """The prompt just shown as the person's words: an agent that echoes it is not shown twice."""
        self._open_requests: dict[str, str] = {}
        self.elicitations = Elicitations(
            self, turn_id=lambda: self._turn_id, open_requests=self._open_requests, request_keys=self._request_keys
        )
        """The agent's ``elicitation/create`` questions (forms and URLs) in this session."""
        self.response = response

    @property
    def title(self) -> str | None:
        """The session's title as the agent last set it (``session_info_update``), or None."""
        return self.side_updates.title

    @property
    def notices(self) -> collections.deque[AcpNotice]:
        """The agent's latest ``side_updates.MAX_NOTICES`` notices, oldest first."""
        return self.side_updates.notices

    @property
    def compactions(self) -> dict[str, AcpCompaction]:
        """The agent's latest ``side_updates.MAX_NOTICES`` context compactions by id, as each last stood."""
        return self.side_updates.compactions

    @property
    def subagents(self) -> dict[str, AcpSubagent]:
        """The subagents working for this session (at most ``unstable_updates.MAX_SUBAGENTS``) by session
        id, as each stands."""
        return self.side_updates.subagents

    @property
    def subagents_dropped(self) -> int:
        """Subagents past ``unstable_updates.MAX_SUBAGENTS``: announced by the agent, neither kept nor shown."""
        return self.side_updates.subagents_dropped

    @property
    def malformed_updates(self) -> int:
        """Notices, compactions and subagent updates dropped because they were malformed."""
        return self.side_updates.malformed_updates

    @property
    def lifecycle_log(self) -> list[LifecycleRecord]:
        """The latest lifecycle records (at most ``RECORD_LIMIT``), oldest first; a copy."""
        return list(self._lifecycle_ring)

    @property
    def answer_policy(self) -> Any:
        """Who answers permission requests without a person: None, a ``cx.AnswerPolicy``, a callable,
        'deny' / 'recommended' / a JSON file path, or a list of answers (``{'permission': 'option name'}``)."""
        return self.frontend_requests.answer_policy

    @answer_policy.setter
    def answer_policy(self, value: Any) -> None:
        self.frontend_requests.answer_policy = value

    # -- event source ----------------------------------------------------------------------
    @property
    def thread_id(self) -> str:
        """The ACP ``sessionId``: the thread id the widgets and ``PlanTimeline`` key this source by."""
        return self.session_id

    @property
    def active_turn(self) -> AcpTurnHandle | None:
        """The running prompt's handle, or None once it is done (as every event source answers:
        a widget made after a prompt ended must not show it as running)."""
        active = self._active
        return active if active is not None and not active.done() else None

    @property
    def capabilities(self) -> Capabilities:
        """What this agent offers (``cx.Capabilities``), from what it said in ``initialize`` (images,
        saved sessions) and ``session/new`` (its options and modes, as it last reported them): no
        steering (a message during a prompt is queued), no model to bring, Plan mode as an option."""
        caps = getattr(self.agent.info, "agent_capabilities", None)
        sessions = getattr(caps, "session_capabilities", None)
        verbs: list[SessionVerb] = []
        if getattr(sessions, "list", None) is not None:
            verbs.append("list")
        if getattr(caps, "load_session", False):
            verbs.append("load")
        if getattr(sessions, "resume", None) is not None:
            verbs.append("resume")
        if getattr(sessions, "fork", None) is not None:
            verbs.append("fork")
        modes = getattr(self._response, "modes", None)
        takes_images = bool(getattr(getattr(caps, "prompt_capabilities", None), "image", False))
        return Capabilities(
            agent="the ACP agent",
            runs_turns=True,
            mid_turn="queue",
            modes=("default",),
            agent_modes=tuple(str(m.id) for m in getattr(modes, "available_modes", None) or ()),
            options=tuple(self._options),
            answers=True,
            interrupt=True,
            images="content_blocks" if takes_images else "none",
            sessions=tuple(verbs),
            usage=True,
            tool_lifecycle=True,
            plan_notification="session/update (plan)",
            no_plan_line="the ACP agent sent no plan update",
            plan_review=True,
        )

    # -- plan review (cx.Capabilities.plan_review) -------------------------------------------
    @property
    def plan_review(self) -> PlanReview | None:
        """The proposed plan the agent waits on for a decision (its plan-review permission request),
        or None."""
        review = self._review
        return review[0] if review is not None else None

    def on_plan_review(self, fn: Callable[[], object]) -> Callable[[], None]:
        """Call ``fn()`` when a plan review opens or closes; returns a remover. While a follower is
        registered (``PlanAnswers`` is one), a plan review waits for the person's decision instead
        of going to the answer policy (the prompts widget may answer it too)."""
        if not callable(fn):
            raise TypeError(f"on_plan_review expects a callable taking no arguments, got {type(fn).__name__}")
        return self._review_observers.add(lambda _none: fn())

    def _review_fault(self, fn: Callable[[None], object], err: Exception, _none: None) -> None:
        log.warning("plan review observer %r raised %s: %s; it was detached", fn, type(err).__name__, err)

    def answer_plan_review(self, decision: PlanDecision) -> PlanReview:
        """Answer the waiting plan review: ``approve`` selects the agent's option that leaves Plan mode
        and implements (its ``allow_once`` one first), ``revise`` and ``reject`` the one that keeps
        planning (send the revision note as the next prompt). Raises ``AcpError`` when no review waits
        or it was settled meanwhile (then nothing was sent)."""
        review = self._review
        if decision not in ("approve", "revise", "reject"):
            raise AcpError(f"a plan review is answered 'approve', 'revise' or 'reject', got {decision!r}")
        if review is None:
            raise AcpError(
                f"ACP session {self.session_id} has no plan review waiting (the agent asks for one when "
                "its Plan-mode turn proposes a plan; a Stop or an earlier answer closes it)"
            )
        waiting, request, labels = review
        option = request.approve if decision == "approve" else request.keep_planning
        label = next(label for label, option_id in labels.items() if option_id == option)
        try:
            self.frontend_requests.answer(waiting.id, {QUESTION_ID: label}, by="plan_answers")
        except AnswerError as err:
            raise AcpError(f"the plan review could not be answered: {err}") from None
        return waiting

    def send_during_turn(self, text: str) -> Sent:
        """Queue ``text`` for the running prompt's end (``cx.AgentSource``'s verb): ACP has no
        steering, so what is queued while a prompt runs is sent as the next prompt, joined by blank
        lines, once it ends. ``Sent.next_turn`` is done with that prompt's handle (or the error that
        kept it from starting). Raises ``TurnError`` when no prompt runs (send a prompt instead)."""
        if not isinstance(text, str):
            raise TurnError(f"send_during_turn() takes the person's text (str), got {type(text).__name__}")
        active = self.active_turn
        if active is None:
            raise TurnError(
                f"no prompt is running in ACP session {self.session_id}, so there is nothing to add to; "
                "send it as a prompt (session.prompt(text))"
            )
        if self._queued_turn is None or self._queued_turn.done():
            self._queued_turn = active.task.get_loop().create_future()
            active.task.add_done_callback(lambda _task: self._send_queued())
        self._queued.append(text)
        return Sent(how="queued", turn_id=None, next_turn=self._queued_turn)

    def _send_queued(self) -> None:
        """The prompt ended: send what was queued during it as the next prompt, once."""
        queued, self._queued = self._queued, []
        waiter, self._queued_turn = self._queued_turn, None
        if waiter is None or waiter.done():
            return
        try:
            waiter.set_result(self.prompt("\n\n".join(queued)))
        except Exception as err:  # noqa: BLE001 - the waiter says why the queued words were not sent
            waiter.set_exception(err)
            waiter.exception()  # read here: a caller that stopped waiting must not leave it unretrieved

    def interrupt(self) -> bool:
        """Cancel the running prompt (``session/cancel``); False if none runs. Any thread."""
        handle = self.active_turn
        return handle is not None and handle.interrupt()

    def on_lifecycle(self, fn: Callable[[LifecycleRecord], None]) -> Callable[[], None]:
        """Observe tool-call start/finish records; returns a remover."""
        return self._lifecycle_observers.add(fn)

    def _lifecycle_fault(
        self, fn: Callable[[LifecycleRecord], object], err: Exception, record: LifecycleRecord
    ) -> None:
        self.emit(
            WarningEvent(
                message=f"lifecycle observer {observer_name(fn)} raised {type(err).__name__}: {err} "
                f"on call {record.call_id}; it was detached"
            )
        )

    def emit(self, msg: EventMsg) -> Event:
        """Publish ``msg`` to this session's subscribers as an event of the running prompt (or of the
        session, between prompts) and return it; a ``plan_update`` gets the next revision number, and
        the running prompt's handle keeps the event for its ``AcpTurnResult``."""
        revision = None
        if msg.type == "plan_update":
            self._revision += 1
            revision = self._revision
        event = self.bus.emit(msg, id=self._turn_id or self.session_id, turn_id=self._turn_id, revision=revision)
        if self.active_turn is not None and self._turn_id == self.active_turn.turn_id:
            self.active_turn.event_log.append(event)
        return event

    # -- modes and options -------------------------------------------------------------------
    @property
    def response(self) -> Any:
        """The agent's ``session/new`` (or ``session/load``) response: modes, models, config options."""
        return self._response

    @response.setter
    def response(self, value: Any) -> None:
        self._response = value
        self._take_options(getattr(value, "config_options", None))

    @property
    def options(self) -> dict[str, AgentOption]:
        """What the agent lets you choose for this session, by id, as it last reported them (a copy):
        its config options (``configOptions``: codex-acp's ``collaboration_mode``, ``model``,
        ``reasoning_effort``; Claude's ``mode``, ``model``, ``effort``) and, for an agent that offers
        modes only, one ``mode`` option. Change one with ``await session.set_option(id, value)``."""
        return dict(self._options)

    def _take_options(self, config_options: Any) -> None:
        """Replace the options with the agent's full list (``configOptions`` always lists them all)."""
        modes = getattr(self._response, "modes", None)
        parsed = parse_options(config_options, modes)
        self._options = dict(parsed.options)
        if self.current_mode is not None:
            self._mode_changed(self.current_mode)
        self._options_changed()
        if parsed.notes and parsed.notes != self.option_notes:
            for note in parsed.notes:
                self.emit(WarningEvent(message=f"the ACP agent's options: {note}"))
        self.option_notes = parsed.notes

    def _mode_changed(self, mode_id: str) -> None:
        """Keep the mode option (made of modes, or a config option of category mode listing this
        mode) in step with ``current_mode``."""
        for key, option in self._options.items():
            if option.category == "mode" and mode_id in {c.value for c in option.choices}:
                self._options[key] = dataclasses.replace(option, current=mode_id)
        self._options_changed()

    def _options_changed(self) -> None:
        """Tell subscribers the options as they stand now, when they differ from what was told last."""
        shown = [option.to_json() for option in self._options.values()]
        if shown != self._shown_options:
            self._shown_options = shown
            self.emit(AcpOptionsUpdated(options=shown))

    def _checked_option(self, option_id: str, value: Any) -> tuple[AgentOption, str | bool]:
        """The option ``option_id`` and ``value`` as the agent takes it, or an ``AcpError`` naming
        what it offers."""
        option = self._options.get(option_id) if isinstance(option_id, str) else None
        if option is None:
            raise AcpError(
                f"the ACP agent offers no option {option_id!r} in this session; its options are {list(self._options)}"
            )
        try:
            return option, option.check(value)
        except ValueError as err:
            raise AcpError(f"the ACP agent's {err}") from None

    async def set_option(
        self, option_id: str, value: str | bool, *, timeout: float = SET_OPTION_TIMEOUT
    ) -> AgentOption:
        """Set one of the agent's ``options`` to one of its values (``session/set_config_option``; a
        ``mode`` option made of modes goes through ``set_mode``) and return the option as the agent
        reports it afterwards. A value the option does not list is refused here, before anything is
        sent; the agent's own refusal, or no answer within ``timeout`` seconds, is an ``AcpError`` too.

        ``await session.set_option("collaboration_mode", "plan")`` puts codex-acp in Plan mode."""
        if self.closed:
            raise AcpError(f"ACP session {self.session_id} is closed; start a new one with agent.new_session()")
        option, checked = self._checked_option(option_id, value)
        if option.via == "mode":
            assert isinstance(checked, str)
            try:
                await asyncio.wait_for(self.set_mode(checked), timeout)
            except asyncio.TimeoutError:
                raise AcpError(
                    f"the ACP agent did not answer session/set_mode for option {option_id!r} within {timeout} s; "
                    f"the mode may or may not have changed (see session.current_mode after its next update)"
                ) from None
            return self._options.get(option_id, dataclasses.replace(option, current=checked))
        from acp import RequestError

        self.agent._require_running()
        method = "session/set_config_option"
        try:
            response = await asyncio.wait_for(
                self.agent._call(
                    self.agent._connection().set_config_option(
                        config_id=option_id, session_id=self.session_id, value=checked
                    ),
                    method,
                ),
                timeout,
            )
        except RequestError as err:
            raise AcpError(
                f"the ACP agent refused option {option_id!r} = {checked!r}: {err} ({err.code}); "
                f"the values it listed are {option.values}"
            ) from None
        except asyncio.TimeoutError:
            raise AcpError(
                f"the ACP agent did not answer {method} for option {option_id!r} within {timeout} s; "
                f"the option may or may not have changed (see session.options after its next update)"
            ) from None
        if response is not None:
            self._take_options(response.config_options)
        if option.category == "mode" and isinstance(checked, str):
            modes = getattr(self._response, "modes", None)
            if checked in {m.id for m in getattr(modes, "available_modes", None) or ()}:
                self.current_mode = checked
        return self._options.get(option_id, dataclasses.replace(option, current=checked))

    async def set_mode(self, mode_id: str) -> None:
        """``session/set_mode``: switch to one of the agent's modes (``response.modes``). Who approves
        is part of a mode for some agents: codex-acp's ``agent`` mode sends approvals to Codex's
        automatic reviewer, ``workspace-write`` asks the person."""
        modes = getattr(self.response, "modes", None)
        known = [m.id for m in getattr(modes, "available_modes", None) or ()]
        if mode_id not in known:
            raise AcpError(f"the ACP agent offers no mode {mode_id!r} in this session; its modes are {known}")
        from acp import RequestError

        try:
            await self.agent._call(
                self.agent._connection().set_session_mode(session_id=self.session_id, mode_id=mode_id),
                "session/set_mode",
            )
        except RequestError as err:
            raise AcpError(
                f"the ACP agent refused session/set_mode {mode_id!r}: {err} ({err.code}) {err.data or ''}"
            ) from None
        self.current_mode = mode_id
        self._mode_changed(mode_id)

    # -- prompts -----------------------------------------------------------------------------
    def _prompt_refusal(self, starting: bool) -> AcpError | None:
        """Why ``prompt`` may not start now (a prompt running or being started), or None."""
        active = self.active_turn
        if active is None and not starting:
            return None
        return AcpError(
            f"a prompt is already running in ACP session {self.session_id} "
            f"({active.turn_id if active is not None else 'starting'}); await it or call "
            f"session.interrupt() first"
        )

    def prompt(self, prompt: str | Sequence[Any], *, options: Mapping[str, str | bool] | None = None) -> AcpTurnHandle:
        """Send ``session/prompt`` in the background; returns its handle at once.

        ``prompt`` is the user's text or a list of ACP content blocks (``acp.text_block(...)``
        and friends, or their JSON dicts). ``options`` (``{"collaboration_mode": "plan"}``) are set
        with ``set_option`` first, in order, as part of the turn: each is checked here (an unknown
        option or value raises at once), and the agent's refusal fails the turn before the prompt is
        sent."""
        blocks = _blocks(prompt)
        settings = [(key, self._checked_option(key, value)[1]) for key, value in (options or {}).items()]
        if self.closed:
            raise AcpError(f"ACP session {self.session_id} is closed; start a new one with agent.new_session()")
        with self._start_gate.claim(self._prompt_refusal):
            self.agent._require_running()
            loop = asyncio.get_running_loop()
            turn_id = f"turn-{next(self._turn_ids)}"
            handle = AcpTurnHandle(self, turn_id)
            self._turn_id = turn_id
            self._last_agent_message = None
            self._after_prompt = False
            self._late_reported = False
            self._active = handle
            handle.task = loop.create_task(self._run(handle, blocks, settings), name=f"acp-prompt-{turn_id}")
        self.emit(TurnStarted(turn_id=turn_id))
        said = "".join(getattr(b, "text", "") or "" for b in blocks)  # the text blocks: what the person said
        self._said = said or None
        if said:
            self.emit(UserMessage(message=said))
        return handle

    def start_turn(
        self,
        text: str | Sequence[Any],
        mode: str = "default",
        options: Mapping[str, str | bool] | None = None,
        **_: Any,
    ) -> AcpTurnHandle:
        """``prompt()`` under the name ``Session`` uses; ``mode`` must be ``default`` (an agent's Plan
        mode is one of its ``options``: ``options={"collaboration_mode": "plan"}`` on codex-acp,
        ``{"mode": "plan"}`` on Claude or Gemini)."""
        if mode != "default":
            raise AcpError(
                f"an ACP session has no {mode!r} mode here; use mode='default' and set the agent's own "
                f"option (session.options), e.g. options={{'collaboration_mode': 'plan'}} on codex-acp"
            )
        return self.prompt(text, options=options)

    async def run(self, prompt: str | Sequence[Any]) -> AcpTurnResult:
        """``await session.run(text)`` is ``await session.prompt(text)``."""
        return await self.prompt(prompt)

    async def _run(
        self, handle: AcpTurnHandle, blocks: list[Any], settings: Sequence[tuple[str, str | bool]] = ()
    ) -> AcpTurnResult:
        stop_reason: str | None = None
        error: str | None = None
        turn_usage: TokenUsage | None = None
        try:
            for option_id, value in settings:
                await self.set_option(option_id, value)
            response = await self.agent._connection().prompt(session_id=self.session_id, prompt=blocks)
            turn_usage = prompt_usage(getattr(response, "usage", None))
            if acknowledged(response):
                # ACP v2 draft: the response only accepted the prompt; the turn ends with the
                # agent's idle state_update (Stop still ends it after cancel_grace).
                stop_reason = await handle.idle
            else:
                stop_reason = str(getattr(response.stop_reason, "value", response.stop_reason))
            status = turn_status(stop_reason)
            if status == "failed":
                error = handle.idle_error or STOP_REASON_TEXT.get(
                    stop_reason, f"the agent stopped with stopReason {stop_reason!r}"
                )
        except asyncio.CancelledError:
            if not handle.hard_aborted:
                raise
            status = "interrupted"
        except AcpError as err:  # an option the agent refused or did not answer: said as it is
            status, error = "failed", str(err)
        except Exception as err:  # noqa: BLE001 - every failure of the prompt becomes a failed turn
            status, error = "failed", await self.agent._describe_failure(err, "session/prompt")
        # The SDK has applied every session/update the agent sent before this response
        # (ClientSideConnection.prompt waits for them): what is buffered now is this turn's.
        self._flush_message()
        for plan_id, text in self.markdown_plans.unshown():
            self._propose(plan_id, text)
        if turn_usage is not None:
            # before the turn's end, so a view that stops following at the end still counts it
            self.token_usage = turn_usage if self.token_usage is None else self.token_usage + turn_usage
            self.emit(TokenCount(info=TokenUsageInfo(total_token_usage=self.token_usage, last_token_usage=None)))
        self._settle_turn(handle, aborted=status != "completed", stop_reason=stop_reason)
        if status == "interrupted":
            self.emit(TurnAborted(turn_id=handle.turn_id, reason="interrupted"))
        else:
            if error is not None:
                self.emit(ErrorEvent(message=error))
            self.emit(TurnComplete(turn_id=handle.turn_id, last_agent_message=self._last_agent_message))
        result = AcpTurnResult(
            turn_id=handle.turn_id,
            status=status,
            stop_reason=stop_reason,
            last_agent_message=self._last_agent_message,
            error=error,
            events=list(handle.events),
            dropped_deltas=handle.event_log.dropped_deltas,
            token_usage=turn_usage,
        )
        self._turn_id = None
        self._after_prompt = True
        return result

    def _settle_turn(self, handle: AcpTurnHandle, *, aborted: bool, stop_reason: str | None) -> None:
        """Close what the ended turn left open: a turn is over with its ``session/prompt``
        response, so no tool call of it is still running (ACP has no later turn to finish in)."""
        for request_id, turn in list(self._open_requests.items()):
            if turn == handle.turn_id:
                self.frontend_requests.cancel(request_id)
        for state in list(self.tool_calls.values()):
            if state.lifecycle_done or state.turn_id != handle.turn_id:
                continue
            if not aborted:
                # codex-acp, for one, drops a command's end when Codex reports it after the
                # turn completed; its real outcome is unknown, so it is not called a success.
                self.emit(
                    WarningEvent(
                        message=f"the ACP agent ended the prompt (stopReason {stop_reason}) without a "
                        f"final status for tool call {state.call_id} ({state.title or state.kind}, "
                        f"last status {state.status}); it is recorded as aborted"
                    )
                )
            self._item_completed(state, aborted=True)
            self._lifecycle("finish", state, ToolCallOutcome.aborted())

    def _begin_cancel(self, handle: AcpTurnHandle) -> None:
        if handle.task.done():
            return
        for request_id, turn in list(self._open_requests.items()):
            if turn == handle.turn_id:  # ACP: pending permission requests answer "cancelled"
                self.frontend_requests.cancel(request_id)
        self.agent._spawn(self._send_cancel(), name=f"acp-cancel-{handle.turn_id}")
        grace = self.agent.cancel_grace
        timer = handle.task.get_loop().call_later(grace, self._hard_abort, handle)
        handle.task.add_done_callback(lambda _: timer.cancel())

    async def _send_cancel(self) -> None:
        try:
            await self.agent._connection().cancel(session_id=self.session_id)
        except Exception as err:  # noqa: BLE001 - the agent is gone; the prompt fails on its own
            log.info("session/cancel could not be sent: %s", err)

    def _hard_abort(self, handle: AcpTurnHandle) -> None:
        if not handle.task.done():
            handle.hard_aborted = True
            self.emit(
                WarningEvent(
                    message=f"the ACP agent did not end the prompt within {self.agent.cancel_grace} s "
                    f"of session/cancel; the turn was ended here"
                )
            )
            handle.task.cancel()

    # -- session/update --------------------------------------------------------------------
    def handle_update(self, update: Any) -> None:
        """Apply one ``session/update`` (called in arrival order, synchronously)."""
        kind = getattr(update, "session_update", None)
        if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
            text = content_text(update.content)
            if text is None:
                log.debug("ignoring non-text %s content", kind)
                return
            if kind == "agent_message_chunk":
                mode = quirks.mode_echo(text)
                if mode is not None:
                    self.current_mode = mode
                    self._mode_changed(mode)
                    return
            if quirks.empty_chunk(text):
                return
            if self._after_prompt and self._turn_id is None:
                self._late_chunk(kind, text)
                return
            message_id = getattr(update, "message_id", None)
            if self._message_kind != kind or message_id != self._message_id:
                self._flush_message()
                self._message_kind, self._message_id = kind, message_id
            self._message.append(text)
            if kind == "agent_message_chunk":
                self.emit(AgentMessageDelta(delta=text))
            elif kind == "agent_thought_chunk":
                self.emit(AgentReasoningDelta(delta=text))
            return
        if self._message_id is None:
            # a message without an id ends at the next other update; one with an id goes on
            # until a chunk of another message (its chunks are joined around tool calls)
            self._flush_message()
        if kind == "plan":
            entries = list(update.entries)
            notes = plan_notes(entries)
            if notes != self._plan_notes:  # said once, not again at each update of the same plan
                for note in notes[:_PLAN_WARNINGS]:
                    self.emit(WarningEvent(message=f"the ACP agent's plan: {note}"))
                if len(notes) > _PLAN_WARNINGS:
                    self.emit(
                        WarningEvent(
                            message=f"the ACP agent's plan: {len(notes) - _PLAN_WARNINGS} more steps "
                            f"were repaired the same way"
                        )
                    )
            self._plan_notes = notes
            self.emit(self._plans.event(entries))
        elif kind in ("tool_call", "tool_call_update"):
            self._tool_call(update, started=kind == "tool_call")
        elif kind == "plan_update":
            self._plan_update(update.plan)
        elif kind == "plan_removed":
            if not self.markdown_plans.remove(update.plan_id):
                log.info("ACP agent removed plan %r, which it never sent", str(update.plan_id)[:100])
        elif kind == "available_commands_update":
            self.available_commands = [
                c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in update.available_commands
            ]
        elif kind == "current_mode_update":
            self.current_mode = update.current_mode_id
            self._mode_changed(update.current_mode_id)
        elif kind == "config_option_update":
            self._take_options(update.config_options)
        elif kind == "usage_update":
            self.usage = update.model_dump(mode="json", by_alias=True, exclude_none=True)
            self.emit(context_token_count(update.used, update.size))
        elif kind == "session_info_update":
            if "title" in update.model_fields_set:  # absent: unchanged; null: cleared (ACP's patch rule)
                self.side_updates.set_title(update.title)
        else:
            log.debug("ACP session update %s kept no state", kind)

    def _plan_update(self, plan: Any) -> None:
        """A ``plan_update`` (the ``plan`` capability): Markdown is kept by id until its review or its
        turn's end shows it as a proposal; a list of items is the checklist, as a ``plan`` is."""
        kind = getattr(plan, "type", None)
        if kind == "markdown":
            self.markdown_plans.update(plan.plan_id, plan.content)
            if self._turn_id is None:  # a loaded session's history: shown now, not as the next turn's
                for plan_id, text in self.markdown_plans.unshown():
                    self._propose(plan_id, text)
        elif kind == "items":
            self.emit(self._plans.event(list(plan.entries)))
        else:
            self.emit(WarningEvent(message=f"the ACP agent's plan {plan.plan_id!r} is a file ({plan.uri}); not shown"))

    def _propose(self, plan_id: str | None, text: str) -> None:
        """Show ``text`` as the agent's proposed plan (the item a Plan-mode turn of Codex ends with)."""
        item = {"type": "plan", "id": plan_id or f"plan-{self._turn_id}", "text": text}
        self.emit(
            ItemCompleted(thread_id=self.session_id, turn_id=self._turn_id or "", item=item, completed_at_ms=_now_ms())
        )

    def _open_review(self, request_id: str, review: ReviewRequest, labels: dict[str, str]) -> None:
        """The agent asks for a decision on its proposed plan: the plan becomes the turn's proposal
        (once), and ``plan_review`` says it waits."""
        if self.markdown_plans.shown(review.item_id, review.text):
            self._propose(review.item_id, review.text)
        self._review = (
            PlanReview(
                id=request_id, turn_id=self._turn_id, item_id=review.item_id, text=review.text, options=tuple(labels)
            ),
            review,
            labels,
        )
        self._review_observers.notify(None)

    def _late_chunk(self, kind: str, text: str) -> None:
        """A chunk after the prompt's response: ACP says the turn was over, so it is no part of
        that answer nor of the next one; it is counted, and the first of each gap is shown."""
        self.late_updates += 1
        log.info("ACP agent sent %s after its prompt ended: %r", kind, text[:_LATE_PREVIEW])
        if self._late_reported:
            return
        self._late_reported = True
        preview = text if len(text) <= _LATE_PREVIEW else text[:_LATE_PREVIEW] + "..."
        self.emit(
            WarningEvent(
                message=f"the ACP agent sent a {kind} after its prompt had ended; it belongs to no "
                f"turn and was not added to any answer (more are only counted in "
                f"session.late_updates): {preview!r}"
            )
        )

    def handle_v2_update(self, update: dict[str, Any]) -> None:
        """Apply a v2-draft update the SDK's schema lacks (``draft_v2``): the idle ``state_update``
        that ends the running prompt, or a whole ``agent_message`` that replaces the message of
        its ``messageId``."""
        kind = update.get("sessionUpdate")
        if kind in unstable_updates.UPDATES:
            self.side_updates.apply(kind, update)
        elif kind == "state_update":
            if update.get("state") != "idle":
                return
            handle = self.active_turn
            if handle is None or handle.idle.done():
                log.info("ACP agent reported idle with no prompt waiting for it (%s)", update.get("stopReason"))
                return
            reason = update.get("stopReason") or "end_turn"
            error = update.get("error")
            if reason == "error" and isinstance(error, dict) and isinstance(error.get("message"), str):
                handle.idle_error = f"the agent ended the turn with an error: {error['message'][:_LATE_PREVIEW]}"
            handle.idle.set_result(str(reason))
        elif kind == "agent_message":
            message_id = update.get("messageId")
            if self._message_kind != "agent_message_chunk" or message_id is None or message_id != self._message_id:
                self._flush_message()
            self._message_kind, self._message_id = "agent_message_chunk", message_id
            if "content" not in update:
                return  # v2 patch semantics: omitted content leaves the message as it is
            blocks = update.get("content") or []
            texts = [b.get("text") for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
            if len(texts) != len(blocks) or not all(isinstance(t, str) for t in texts):
                self.emit(
                    WarningEvent(
                        message=f"the ACP agent's agent_message {message_id!r} has content that is not text; only its text is kept"
                    )
                )
            # the whole content replaces what the message's chunks said so far; later chunks append
            self._message = [t for t in texts if isinstance(t, str)]

    def _flush_message(self) -> None:
        kind, parts = self._message_kind, self._message
        self._message, self._message_kind, self._message_id = [], None, None
        if not parts:
            return
        text = "".join(parts)
        if kind == "agent_message_chunk":
            self._last_agent_message = text
            self.emit(AgentMessage(message=text))
        elif kind == "user_message_chunk":
            if text == self._said:
                self._said = None  # an agent echoing the prompt it was sent: shown once already
                return
            self.emit(UserMessage(message=text))

    def _tool_call(self, update: Any, *, started: bool) -> None:
        call_id = update.tool_call_id
        state = self.tool_calls.get(call_id)
        if started and state is not None and state.turn_id != self._turn_id:
            state = None  # a new call under an id an ended turn used: not that call's late update
        new = state is None
        if state is None:
            state = ToolCallState(call_id=call_id, turn_id=self._turn_id)
            self.tool_calls.pop(call_id, None)  # re-inserted last: the dict's order is the calls' age
            self.tool_calls[call_id] = state
            self._trim_tool_calls()
            asked = self._asked_calls.pop(call_id, None)
            if asked is not None and not started:
                state.apply(asked)
        state.apply(update)
        quirks.apply_to_tool_call(state)
        if state.turn_id != self._turn_id:
            # A late update of a call whose turn has ended: it is kept on the call and shown
            # with that turn's id, never as part of the turn running now.
            self.bus.emit(state.event("updated"), id=state.turn_id or self.session_id, turn_id=state.turn_id)
            return
        self.emit(state.event("started" if started or new else "updated"))
        if new:
            self.emit(
                ItemStarted(
                    thread_id=self.session_id, turn_id=state.turn_id or "", item=state.item(), started_at_ms=_now_ms()
                )
            )
            self._lifecycle("start", state, None)
        if quirks.todo_tool(call_id) and state.status == "completed":
            self._todo_plan(state)
        if state.finished and not state.lifecycle_done:
            self._item_completed(state)
            self._lifecycle("finish", state, ToolCallOutcome.completed(state.status == "completed"))

    def _todo_plan(self, state: ToolCallState) -> None:
        """The plan of a finished ``write_todos`` call (``quirks.todo_tool``): its arguments took
        effect, so they are the agent's plan now; a call the person rejected changed nothing."""
        if state.raw_input is None:
            if not self._todos_unsent:  # said once a session: every such call is the same
                self._todos_unsent = True
                self.emit(
                    WarningEvent(
                        message=f"the agent's write_todos call {state.title[:_LATE_PREVIEW]!r} carries no todos "
                        f"(Gemini CLI 0.61 sends only its title over ACP), so the checklist cannot show its plan"
                    )
                )
            return
        if self._todos_shown.get(state.call_id, _UNSET) == state.raw_input:
            return
        if len(self._todos_shown) >= RECORD_LIMIT:
            self._todos_shown.clear()
        self._todos_shown[state.call_id] = state.raw_input
        event, error = todo_plan(state.raw_input)
        if event is None:
            self.emit(WarningEvent(message=f"the agent's write_todos call was not shown as its plan: {error}"))
            return
        self.emit(event)

    def _trim_tool_calls(self) -> None:
        while len(self.tool_calls) > RECORD_LIMIT:
            # The oldest call whose lifecycle is closed goes first; if a hostile agent keeps
            # every call open, the oldest open one goes.
            victim = next((k for k, v in self.tool_calls.items() if v.lifecycle_done), next(iter(self.tool_calls)))
            del self.tool_calls[victim]
            self._dropped("tool call")

    def _dropped(self, what: str) -> None:
        self.records_dropped += 1
        if self.records_dropped == 1:
            self.emit(
                WarningEvent(
                    message=f"this ACP session keeps its latest {RECORD_LIMIT} tool calls and lifecycle "
                    f"records; an older {what} was dropped (session.records_dropped counts "
                    f"them; on_lifecycle observers still see every record)"
                )
            )

    def _item_completed(self, state: ToolCallState, *, aborted: bool = False) -> None:
        self.emit(
            ItemCompleted(
                thread_id=self.session_id,
                turn_id=state.turn_id or "",
                item=state.item(aborted=aborted),
                completed_at_ms=_now_ms(),
            )
        )

    def _lifecycle(
        self, phase: Literal["start", "finish"], state: ToolCallState, outcome: ToolCallOutcome | None
    ) -> None:
        if phase == "finish":
            state.lifecycle_done = True
        record = LifecycleRecord(
            phase=phase,
            thread_id=self.session_id,
            turn_id=state.turn_id or "",
            call_id=state.call_id,
            tool_name=ToolName.of(state.kind or "other", TOOL_NAMESPACE),
            outcome=outcome,
        )
        if len(self._lifecycle_ring) == RECORD_LIMIT:
            self._dropped("lifecycle record")
        self._lifecycle_ring.append(record)
        self._lifecycle_observers.notify(record)

    # -- session/request_permission ------------------------------------------------------------
    async def request_permission(self, options: list[Any], tool_call: Any) -> RequestPermissionResponse:
        """Answer the agent's ``session/request_permission`` for ``tool_call``: the options become a
        question (shown as ``request_user_input`` questions are) for the prompts widget or the answer
        policy, and the chosen option is the response. A request during a cancelled prompt, or one
        nobody answered, gets the ``cancelled`` outcome."""
        turn_id = self._turn_id or "no-turn"
        handle = self.active_turn
        if self._asking_ended(handle):
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        call_id = tool_call.tool_call_id
        if call_id not in self.tool_calls:
            # Qwen Code 0.24 asks before it sends anything of the call, then sends only a
            # tool_call_update: the request's toolCall (an ACP ToolCallUpdate) names the call then
            # (else the transcript showed a call with no title). Agents that send a tool_call after
            # asking (codex-acp 0.16) name it themselves.
            if len(self._asked_calls) >= RECORD_LIMIT:
                self._asked_calls.clear()
            self._asked_calls[call_id] = tool_call
        review = plan_review_of(tool_call, options, self.tool_calls.get(call_id))
        plan_path = quirks.plan_file(getattr(tool_call, "title", None)) if review is None else None
        if plan_path is not None:
            review = await self._file_plan_review(plan_path, options)
        # the paths' checks resolve symlinks the agent named: file system calls, off the event loop
        asked = functools.partial(
            question_event,
            call_id=call_id,
            turn_id=turn_id,
            tool_call=tool_call,
            options=options,
            known=self.tool_calls.get(call_id),
        )
        try:
            msg, labels = await asyncio.wait_for(asyncio.to_thread(asked, cwd=self.cwd), DETAILS_TIMEOUT)
        except asyncio.TimeoutError:
            self.emit(
                WarningEvent(
                    message=f"codex_nb could not check the paths of the ACP agent's permission request within "
                    f"{DETAILS_TIMEOUT:g} s (a file system did not answer); the question shows no paths, "
                    f"command or diff: read the tool call before you allow it"
                )
            )
            msg, labels = asked(cwd=None)
        if self._asking_ended(handle):  # Stop or close while the plan or the paths were read
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        broker = self.frontend_requests
        # The broker lets a newer question replace an older one of the same turn key (as
        # request_user_input does); ACP permission requests may be concurrent, so each
        # gets its own key.
        key = f"{turn_id}#permission-{next(self._request_keys)}"
        request = broker.open(RequestKind.USER_INPUT, turn_id=key, call_id=call_id, msg=msg)
        self._open_requests[request.id] = turn_id
        try:
            if review is not None:
                self._open_review(request.id, review, labels)
            self.emit(msg)
            # a plan review someone follows (PlanAnswers) waits for the person's decision
            followed = review is not None and len(self._review_observers) > 0
            if request.settled is None and not followed:
                try:
                    await route(broker, request, what="the ACP permission request", unanswerable=how_to_answer())
                except Exception as err:  # noqa: BLE001 - a broken policy rejects, and says why
                    broker.fail(request.id, f"answer policy failed: {type(err).__name__}: {err}")
            settlement = await broker.wait(request)
        finally:
            broker.cancel(request.id)
            self._open_requests.pop(request.id, None)
            if review is not None:
                self._review = None
                self._review_observers.notify(None)
            outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
            self.emit(
                FrontendRequestResolved(
                    request_id=request.id, kind=RequestKind.USER_INPUT.value, call_id=call_id, outcome=outcome.value
                )
            )
        choice = choice_from(settlement, labels, options)
        if choice.note:
            self.emit(WarningEvent(message=choice.note))
        if choice.option_id is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=choice.option_id, outcome="selected"))

    def _asking_ended(self, handle: AcpTurnHandle | None) -> bool:
        """True once the session closed or its prompt was stopped: a request is then cancelled, not asked."""
        return self.closed or (handle is not None and handle.cancel.cancelled)

    async def _file_plan_review(self, path: str, options: list[Any]) -> ReviewRequest | None:
        """The plan review of a request that names its plan's file ``path`` (Gemini CLI's
        exit_plan_mode), once ``plan_files`` read the file safely; otherwise None, and a warning says
        why it stays a permission question."""
        if decision_options(options) is None:
            return None
        folders = PlanFolders.of(session_folder=self.cwd, session_id=self.session_id, env=self.agent.env)
        try:
            text = await read_plan_file(path, folders)
        except PlanFileError as err:
            self.emit(
                WarningEvent(
                    message=f"the ACP agent asks to approve the plan in {path[:_LATE_PREVIEW]!r}, which codex_nb "
                    f"did not read ({err}); it is asked as a permission question, not shown as a proposed plan"
                )
            )
            return None
        return file_plan_review(text, options)

    # -- closing ---------------------------------------------------------------------------------
    @property
    def offers_close(self) -> bool:
        """The agent offers ``session/close`` (``agentCapabilities.sessionCapabilities.close``)."""
        caps = getattr(self.agent.info, "agent_capabilities", None)
        return getattr(getattr(caps, "session_capabilities", None), "close", None) is not None

    async def aclose(self, *, timeout: float = CLOSE_TIMEOUT) -> None:
        """End the running prompt, tell the agent with ``session/close`` when it offers it (waiting at most
        ``timeout`` seconds: an agent that does not answer is told in a warning, the session closes all
        the same), release its terminals and close the session here. The agent process keeps running
        for the agent's other sessions (``AcpAgent.aclose`` ends it)."""
        if self.closed:
            return
        handle = self.active_turn
        if handle is not None and not handle.done():
            handle.hard_aborted = True
            handle.task.cancel()
            await asyncio.gather(handle.task, return_exceptions=True)
        await self.send_close(timeout=timeout)
        await self.terminals.close()
        self._close()

    async def send_close(self, *, timeout: float = CLOSE_TIMEOUT) -> bool:
        """``session/close`` if the agent offers it and is running; True when it answered in ``timeout``
        seconds. A refusal or no answer is one warning, never an exception."""
        if self.closed or not self.offers_close or not self.agent.can_close_sessions():
            return False
        try:
            await asyncio.wait_for(self.agent._connection().close_session(session_id=self.session_id), timeout)
        except asyncio.TimeoutError:
            problem = f"it did not answer within {timeout:g} s"
        except Exception as err:  # noqa: BLE001  # the agent's refusal or its end: the session closes anyway
            problem = f"it answered {type(err).__name__}: {str(err)[:_LATE_PREVIEW]}"
        else:
            return True
        log.info("session/close of %s: %s", self.session_id, problem)
        self.emit(
            WarningEvent(
                message=f"the ACP agent was told to close session {self.session_id}, but {problem}; closed here"
            )
        )
        return False

    def _agent_gone(self, message: str) -> None:
        if self.active_turn is None or self.active_turn.done():
            self.emit(WarningEvent(message=message))

    def _close(self) -> None:
        self.closed = True
        self.agent.sessions.pop(self.session_id, None)
        for child in self.side_updates.subagents:
            self.agent.subagent_parents.pop(child, None)
        for request in self.frontend_requests.pending:
            self.frontend_requests.cancel(request.id)
        self.bus.close()

    def __repr__(self) -> str:
        return f"<AcpSession {self.session_id} of {self.agent.command}>"


def _now_ms() -> int:
    return int(time.time() * 1000)


def _blocks(prompt: str | Sequence[Any]) -> list[Any]:
    if isinstance(prompt, str):
        return [text_block(prompt)]
    if isinstance(prompt, Sequence) and prompt:
        from acp.schema import PromptRequest

        try:
            return list(PromptRequest.model_validate({"sessionId": "-", "prompt": list(prompt)}).prompt)
        except Exception as err:  # pydantic.ValidationError
            raise AcpError(
                f"the prompt must be text or a list of ACP content blocks (e.g. acp.text_block('...')); {err}"
            ) from None
    raise AcpError(f"the prompt must be text or a non-empty list of ACP content blocks, got {type(prompt).__name__}")
