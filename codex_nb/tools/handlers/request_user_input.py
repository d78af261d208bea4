"""``request_user_input``: ask the user one to three questions and wait
(codex-rs/core/src/tools/handlers/request_user_input.rs).

Checks run in Codex's order: payload kind, root thread, mode (at call time), parse,
non-empty options; then ``isOther`` is forced on, ``autoResolutionMs`` clamped to
[60000, 240000], and the request goes to the frontend. The model reads
``{"answers": {id: {"answers": [...]}}}``; an auto-resolved answer is ``{"answers":{}}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.serde import SerdeError
from ...protocol.wire import dumps
from ...frontend.requests import Outcome, RequestKind
from ..base import Tool
from ..tool_errors import Fatal, RespondToModel
from ..exposure import ToolExposure
from ..invocation import ModeKind, ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec
from .ask import ask

if TYPE_CHECKING:
    from ...config import Config

NAME = "request_user_input"
UNSUPPORTED_PAYLOAD = "request_user_input handler received unsupported payload"
ROOT_ONLY = "request_user_input can only be used by the root thread"
EMPTY_OPTIONS = "request_user_input requires non-empty options for every question"
CANCELLED = "request_user_input was cancelled before receiving a response"
AUTO_RESOLUTION_MIN_MS = 60_000
AUTO_RESOLUTION_MAX_MS = 240_000

MODE_DISPLAY = {ModeKind.DEFAULT: "Default", ModeKind.PLAN: "Plan"}
_DESCRIPTION_HEAD = "Request user input for one to three short questions and wait for the response."
# Codex 0.169 has no auto-resolution: the sentence and the parameter exist only when the
# config forwards autoResolutionMs (the notebook profile, ``Config()``).
_AUTO_RESOLUTION_SENTENCE = (
    " Set autoResolutionMs, from 60000 to 240000 milliseconds, only when the question is useful but non-blocking "
    "and continuing with best judgment is acceptable if the user does not answer; omit it when explicit user "
    "input is required."
)


def available_modes(config: Config) -> list[ModeKind]:
    """TUI-visible modes ``[Default, Plan]`` where request_user_input is allowed."""
    return [
        m for m in (ModeKind.DEFAULT, ModeKind.PLAN) if m == ModeKind.PLAN or config.default_mode_request_user_input
    ]


def format_allowed(modes: list[ModeKind]) -> str:
    names = [MODE_DISPLAY[m] for m in modes]
    if not names:
        return "no modes"
    if len(names) == 1:
        return f"{names[0]} mode"
    if len(names) == 2:
        return f"{names[0]} or {names[1]} mode"
    return "modes: " + ",".join(names)


def description(config: Config) -> str:
    head = _DESCRIPTION_HEAD + (_AUTO_RESOLUTION_SENTENCE if config.forward_auto_resolution else "")
    return f"{head} This tool is only available in {format_allowed(available_modes(config))}."


def parameters(config: Config | None = None) -> dict[str, Any]:
    option = {
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "description": "One short sentence explaining impact/tradeoff if selected.",
            },
            "label": {"type": "string", "description": "User-facing label (1-5 words)."},
        },
        "required": ["label", "description"],
        "additionalProperties": False,
    }
    question = {
        "type": "object",
        "properties": {
            "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)."},
            "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
            "options": {
                "type": "array",
                "description": (
                    "Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label "
                    'with "(Recommended)". Do not include an "Other" option in this list; the client will add a '
                    'free-form "Other" option automatically.'
                ),
                "items": option,
            },
            "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
        },
        "required": ["id", "header", "question", "options"],
        "additionalProperties": False,
    }
    properties: dict[str, Any] = {
        "autoResolutionMs": {
            "type": "number",
            "description": (
                "Optional auto-resolution window in milliseconds, from 60000 to 240000. Include this only when "
                "the question is useful but non-blocking and continuing with best judgment is acceptable if the "
                "user does not answer; omit it when explicit user input is required before continuing. Use "
                "60000 for lightly helpful context and up to 240000 when the answer would materially unblock "
                "better work."
            ),
        },
        "questions": {
            "type": "array",
            "description": "Questions to show the user. Prefer 1 and do not exceed 3",
            "items": question,
        },
    }
    if config is not None and not config.forward_auto_resolution:
        del properties["autoResolutionMs"]
    return {
        "type": "object",
        "properties": properties,
        "required": ["questions"],
        "additionalProperties": False,
    }


def clamp_auto_resolution(ms: int | None) -> int | None:
    return None if ms is None else min(max(ms, AUTO_RESOLUTION_MIN_MS), AUTO_RESOLUTION_MAX_MS)


class RequestUserInputTool(Tool):
    is_control_tool = True

    def __init__(self, config: Config) -> None:
        super().__init__(NAME, exposure=ToolExposure.DirectModelOnly)
        self.config = config

    def spec(self) -> dict[str, Any]:
        return function_spec(NAME, description(self.config), parameters(self.config))

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        turn = invocation.turn
        if invocation.call.payload.kind != "function":
            raise RespondToModel(UNSUPPORTED_PAYLOAD)
        if not turn.is_root_thread:
            raise RespondToModel(ROOT_ONLY)
        if turn.mode not in available_modes(turn.config):
            raise RespondToModel(f"request_user_input is unavailable in {MODE_DISPLAY[turn.mode]} mode")
        # imported by the first question, not by every Session() that offers the tool
        from ...protocol.frontend import (
            RequestUserInputArgs,
            RequestUserInputEvent,
            RequestUserInputQuestions,
            parse_frontend_args,
        )

        try:
            forward = turn.config.forward_auto_resolution
            args = parse_frontend_args(
                RequestUserInputArgs if forward else RequestUserInputQuestions, invocation.payload_text
            )
        except SerdeError as err:
            raise RespondToModel(f"failed to parse function arguments: {err}") from None
        if any(not q.options for q in args.questions):
            raise RespondToModel(EMPTY_OPTIONS)
        auto = clamp_auto_resolution(args.autoResolutionMs) if forward else None
        event = RequestUserInputEvent(
            call_id=invocation.call_id,
            turn_id=turn.turn_id,
            questions=[q.model_copy(update={"isOther": True}) for q in args.questions],
            # Codex 0.169: a Plan-mode question blocks the plan; a Default-mode one does not. A
            # question that resolves itself after a while (forwarded autoResolutionMs) never blocks.
            isBlocking=turn.mode == ModeKind.PLAN and auto is None,
            autoResolutionMs=auto,
        )
        settlement = await ask(invocation, RequestKind.USER_INPUT, event, NAME)
        if settlement.outcome == Outcome.UNANSWERABLE:
            raise RespondToModel(str(settlement.response))
        if settlement.outcome in (Outcome.CANCELLED, Outcome.REPLACED):
            raise RespondToModel(CANCELLED)
        try:
            body = dumps(settlement.response)
        except (TypeError, ValueError) as err:
            raise Fatal(f"failed to serialize request_user_input response: {err}") from None
        return ToolOutput(body=body, success=True)
