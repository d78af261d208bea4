"""``AgentSource`` and ``Capabilities``: one way to work with any agent.

codex_nb drives several kinds of agent: its own runtime (``cx.Session``), the real Codex
(``CodexThread``), ACP agents (``AcpSession``) and saved sessions played back
(``cx.RolloutReplay``). Each takes a person's verbs (start a turn, say something while it runs,
answer, set an option, stop) in its own way. Callers (``PlanAnswers``, the magics, the widgets,
``cx.compare``) used to find out which by the source's kind or by probing attributes; now each
source says what it offers in one frozen value, ``source.capabilities``, and the verbs share one
signature, ``AgentSource``. A caller reads the value and calls the verbs; it never asks what kind
of source it holds.

This module is the protocol layer's: it names no source class, so every layer may import it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .events import Event

MidTurn = Literal["steer", "queue", "none"]
"""How a message sent while a turn runs reaches the agent (``send_during_turn``): ``steer`` into
the running turn (codex_nb's runtime, the real Codex), ``queue`` as the next prompt when the turn
ends (an ACP agent, which has no steering), or ``none`` (a replay runs no turn)."""
TurnIds = Literal["at_start", "later"]
"""When a turn's id is known: on the handle ``start_turn`` returns (``at_start``), or ``later``,
when the agent answers (the real Codex: ``await handle.started`` gives it)."""
ImageInput = Literal["input_items", "content_blocks", "none"]
"""How a turn takes images: Codex's ``input`` items (``start_turn(text, input=[...])``), ACP
content blocks (``start_turn([blocks])``), or not at all (described in text instead)."""
SessionVerb = Literal["list", "load", "resume", "fork"]
PlanDecision = Literal["approve", "revise", "reject"]
"""A person's decision on a proposed plan the agent waits on (``source.answer_plan_review``)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Capabilities:
    """What a source offers a person, as it said so (``source.capabilities``).

    Read it before calling a verb: ``mid_turn`` says what ``send_during_turn`` does,
    ``needs_model`` whether ``start_turn`` takes ``model=``, ``options`` which ids
    ``set_option`` takes. Widgets show a control only where the source offers it (Stop needs
    ``interrupt``, sending needs ``runs_turns``). An ACP session's value follows what its agent
    said in ``initialize`` and ``session/new``, so it can change as the agent reports new options;
    read it when you need it rather than keeping it."""

    agent: str = "this source"
    """Who runs the turns, as a sentence names it: ``codex_nb's runtime``, ``Codex``, ``the ACP agent``,
    ``a saved session``."""
    runs_turns: bool = False
    """``start_turn`` starts a turn (False for a replay: nothing runs)."""
    mid_turn: MidTurn = "none"
    """What ``send_during_turn`` does with a message while a turn runs (see ``MidTurn``)."""
    hands_back_unread: bool = False
    """Steered input the turn ended before reading is handed back by the turn's handle
    (``handle.unread_input()`` peeks, ``handle.take_unread_input()`` takes it), so the caller can send
    it as the next turn (codex_nb's runtime). Where False the agent keeps it or says it read it."""
    needs_model: bool = False
    """``start_turn`` takes ``model=`` (codex_nb's runtime); the others bring their own model."""
    turn_ids: TurnIds = "at_start"
    """When a turn's id is known (see ``TurnIds``)."""
    modes: tuple[str, ...] = ()
    """The values ``start_turn(..., mode=)`` takes: ``("default", "plan")`` where Plan mode is a turn's
    mode (codex_nb's runtime, the real Codex); an ACP agent's Plan mode is one of its ``options``."""
    agent_modes: tuple[str, ...] = ()
    """The agent's own session modes, by id (ACP ``session/new``'s ``modes``), set with ``set_option``."""
    options: tuple[str, ...] = ()
    """The option ids ``await source.set_option(id, value)`` takes (``source.options`` describes them)."""
    answers: bool = False
    """The agent asks a person questions and approvals (``source.frontend_requests`` holds them, and
    ``cx.PromptsWidget(source)`` shows them)."""
    interrupt: bool = False
    """``interrupt()`` can stop a running turn (the Stop control)."""
    images: ImageInput = "none"
    """How a turn takes images (see ``ImageInput``)."""
    sessions: tuple[SessionVerb, ...] = ()
    """What the agent does with saved sessions: ``list``, ``load``, ``resume``, ``fork``."""
    usage: bool = False
    """The source reports token usage (``token_count`` events, ``source.token_usage``)."""
    tool_lifecycle: bool = False
    """``source.on_lifecycle(fn)`` reports each tool call's start and finish."""
    tool_plan: bool = False
    """The source says which tools each turn offers (``source.tool_plan(mode)``, ``source.config``,
    ``source.history``), so a missing plan can be explained by the tool being off or refused, and its
    plan snapshots come from its own ``update_plan`` calls, which its lifecycle records name."""
    hooks: bool = False
    """The source runs codex_nb's hooks (``source.hook_engine``, ``source.trust_hooks``: ``%codex_hooks``);
    the real Codex and ACP agents run theirs themselves."""
    plan_notification: str | None = None
    """The message the agent's plan arrives in on the wire (``turn/plan/updated``,
    ``session/update (plan)``), None when codex_nb makes the plan itself."""
    no_plan_line: str | None = None
    """What a turn that ended without a plan is said as when the source shows nothing more
    (``Codex sent no turn/plan/updated``); None: nothing is said (no guessing)."""
    replay: bool = False
    """Events are played back as saved: nothing runs, and a plan snapshot's event id is the id of
    the ``update_plan`` call that made it."""
    plan_review: bool = False
    """The agent asks for a decision on its proposed plan while its turn waits (an ACP agent's
    plan-review permission: codex-acp's ``switch_mode`` request, Claude's ExitPlanMode):
    ``source.plan_review`` is the ``PlanReview`` waiting (or None), ``source.answer_plan_review(d)``
    answers it and ``source.on_plan_review(fn)`` follows it (a follower makes the review wait for
    the person). Where False a proposed plan ends its turn and a decision starts the next turn
    (codex_nb's runtime, the real Codex)."""

    @property
    def can_send(self) -> bool:
        """A person's message reaches the agent: it starts a turn, or goes into (or after) the running one."""
        return self.runs_turns


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanReview:
    """A proposed plan the agent waits on for a decision (``capabilities.plan_review``)."""

    id: str
    """The request's id (the prompts broker's: the same request the prompts widget may show)."""
    turn_id: str | None
    """The running turn that waits for the decision."""
    item_id: str | None
    """The plan's own id, as the agent named it (codex-acp: Codex's plan item id)."""
    text: str
    """The plan, as the agent sent it (Markdown)."""
    options: tuple[str, ...] = ()
    """The agent's own answers, by name (``Yes, implement this plan``...), for a person to read."""


NO_CAPABILITIES = Capabilities(interrupt=True)
"""What an event source that does not say offers: its events and ``interrupt()``, nothing more
(every ``EventSource`` has ``interrupt``; a source that cannot stop a turn says so by returning False)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Sent:
    """What ``send_during_turn`` did with a message."""

    how: Literal["steered", "queued"]
    turn_id: str | None
    """The running turn it was steered into (None when queued, or when the turn's id is not known yet)."""
    accepted: asyncio.Future[Any] | None = None
    """Steered: done when the agent has accepted the input (it raises if the agent refused it, e.g.
    because the turn ended first); None when it was accepted on the spot."""
    next_turn: asyncio.Future[Any] | None = None
    """Queued: done with the handle of the turn that carries the message once the running turn ended
    (it raises if that turn could not start)."""


class TurnLike(Protocol):
    """What a caller may use of any source's turn handle (``await handle`` gives its result)."""

    @property
    def turn_id(self) -> str: ...

    def done(self) -> bool: ...

    def interrupt(self) -> bool: ...

    def __await__(self) -> Any: ...


@runtime_checkable
class AgentSource(Protocol):
    """The person's verbs on any agent: ``cx.Session``, a Codex thread, an ACP session, a replay.

    Every source has these; what each verb does there is in ``capabilities``. Optional verbs,
    present when ``capabilities`` says so: ``await set_option(id, value)`` (``options``),
    ``frontend_requests`` (``answers``), ``on_lifecycle(fn)`` (``tool_lifecycle``),
    ``tool_plan(mode)`` (``tool_plan``), ``plan_review`` / ``answer_plan_review(decision)`` /
    ``on_plan_review(fn)`` (``plan_review``)."""

    @property
    def thread_id(self) -> str:
        """The thread this source's events belong to (Codex's thread id, an ACP ``sessionId``...)."""
        ...

    @property
    def capabilities(self) -> Capabilities:
        """What this source offers (see ``Capabilities``)."""
        ...

    @property
    def active_turn(self) -> Any:
        """The running turn's handle (``TurnLike``), or None."""
        ...

    def subscribe(self, fn: Callable[[Event], object]) -> Callable[[], None]:
        """Call ``fn(event)`` at each of the source's events; returns unsubscribe."""
        ...

    def start_turn(self, text: Any, **options: Any) -> Any:
        """Start a turn with the person's ``text`` (``mode=``, and ``model=`` where
        ``capabilities.needs_model``); returns its handle at once."""
        ...

    def send_during_turn(self, text: str) -> Sent:
        """Give the running turn the person's ``text``, as this agent can (``capabilities.mid_turn``).
        Raises ``TurnError`` when no turn runs or it has ended (start a turn instead)."""
        ...

    def interrupt(self) -> bool:
        """Stop the running turn; False if none runs (or it cannot be stopped)."""
        ...


def capabilities_of(source: object) -> Capabilities:
    """``source.capabilities``, or ``NO_CAPABILITIES`` for an event source that does not say (a
    widget may show any ``EventSource``: one made outside codex_nb offers its events and Stop)."""
    capabilities = getattr(source, "capabilities", None)
    return capabilities if isinstance(capabilities, Capabilities) else NO_CAPABILITIES
