"""request_user_input: spec bytes, check order, answers, auto-resolution,
interrupt, headless policies, and the broker's bad-input handling."""

from __future__ import annotations

import asyncio
import json

import pytest

import codex_nb as cx
from codex_nb.protocol.wire import dumps
from codex_nb.frontend.answer_policy import ENV_VAR, AnswerPolicy, AnswerPolicyError
from codex_nb.errors import AnswerError
from codex_nb.frontend.requests import FrontendRequests, Outcome
from codex_nb.tools.handlers.request_user_input import CANCELLED, format_allowed
from codex_nb.tools.invocation import ModeKind
from helpers.frontend_waits import wait_pending

QUESTION = {
    "id": "confirm_path",
    "header": "Confirm",
    "question": "Proceed with the plan?",
    "options": [
        {"label": "Yes (Recommended)", "description": "Continue the current plan."},
        {"label": "No", "description": "Stop and revisit the approach."},
    ],
}
ARGS = {"questions": [QUESTION]}

SPEC = (
    '{"type":"function","name":"request_user_input","description":"Request user input for one to three short '
    "questions and wait for the response. Set autoResolutionMs, from 60000 to 240000 milliseconds, only when the "
    "question is useful but non-blocking and continuing with best judgment is acceptable if the user does not "
    'answer; omit it when explicit user input is required. This tool is only available in Plan mode.","strict":false,'
    '"parameters":{"type":"object","properties":{"autoResolutionMs":{"type":"number","description":"Optional '
    "auto-resolution window in milliseconds, from 60000 to 240000. Include this only when the question is useful but "
    "non-blocking and continuing with best judgment is acceptable if the user does not answer; omit it when explicit "
    "user input is required before continuing. Use 60000 for lightly helpful context and up to 240000 when the answer "
    'would materially unblock better work."},"questions":{"type":"array","description":"Questions to show the user. '
    'Prefer 1 and do not exceed 3","items":{"type":"object","properties":{"header":{"type":"string","description":'
    '"Short header label shown in the UI (12 or fewer chars)."},"id":{"type":"string","description":"Stable '
    'identifier for mapping answers (snake_case)."},"options":{"type":"array","description":"Provide 2-3 mutually '
    'exclusive choices. Put the recommended option first and suffix its label with \\"(Recommended)\\". Do not '
    'include an \\"Other\\" option in this list; the client will add a free-form \\"Other\\" option automatically.",'
    '"items":{"type":"object","properties":{"description":{"type":"string","description":"One short sentence '
    'explaining impact/tradeoff if selected."},"label":{"type":"string","description":"User-facing label (1-5 '
    'words)."}},"required":["label","description"],"additionalProperties":false}},"question":{"type":"string",'
    '"description":"Single-sentence prompt shown to the user."}},"required":["id","header","question","options"],'
    '"additionalProperties":false}}},"required":["questions"],"additionalProperties":false}}'
)


class ManualTimer:
    """Injected into the broker: records scheduled callbacks, fires them on demand."""

    def __init__(self) -> None:
        self.scheduled: list[tuple[float, object, list[bool]]] = []
        self.added = asyncio.Event()

    def __call__(self, delay, fn):
        cancelled = [False]
        self.scheduled.append((delay, fn, cancelled))
        self.added.set()
        return lambda: cancelled.__setitem__(0, True)

    def fire(self, index: int = -1) -> None:
        delay, fn, cancelled = self.scheduled[index]
        assert not cancelled[0]
        fn()


@pytest.fixture
def session() -> cx.Session:
    s = cx.Session()
    s.frontend_requests = FrontendRequests(timer=ManualTimer())
    return s


@pytest.fixture
def attached(session, rendered_frontend) -> cx.Session:
    session.frontend_requests.attach(rendered_frontend)
    return session


# -- spec -----------------------------------------------------------------------------------
def test_spec_bytes_and_exposure(session):
    plan = session.tool_plan("plan")
    spec = next(s for s in plan.specs if s["name"] == "request_user_input")
    assert dumps(spec) == SPEC
    assert plan.exposure("request_user_input") is cx.tools.ToolExposure.DirectModelOnly
    assert [s["name"] for s in session.tool_plan("default").specs][:2] == ["update_plan", "request_user_input"]


def test_description_follows_default_mode_feature():
    s = cx.Session(cx.Config(default_mode_request_user_input=True))
    spec = next(x for x in s.tool_plan().specs if x["name"] == "request_user_input")
    assert spec["description"].endswith("This tool is only available in Default or Plan mode.")


def test_format_allowed_forms():
    assert format_allowed([]) == "no modes"
    assert format_allowed([ModeKind.PLAN]) == "Plan mode"
    assert format_allowed([ModeKind.DEFAULT, ModeKind.PLAN]) == "Default or Plan mode"
    assert format_allowed([ModeKind.DEFAULT, ModeKind.PLAN, ModeKind.PLAN]) == "modes: Default,Plan,Plan"


def test_config_gate_and_toml():
    assert cx.Config.from_toml("").request_user_input_enabled is True
    cfg = cx.Config.from_toml("[tools.experimental_request_user_input]\nenabled = false\n")
    assert "request_user_input" not in [s.get("name") for s in cx.Session(cfg).tool_plan("plan").specs]
    assert cx.Config.from_toml("[features]\ndefault_mode_request_user_input = true\n").default_mode_request_user_input


# -- checks, in order -------------------------------------------------------------------------
async def test_mode_check_precedes_parse(session):
    res = await session.call_tool("request_user_input", "not json", mode="default")
    assert res.output == "request_user_input is unavailable in Default mode"
    assert res.success is False and res.events == []


async def test_default_mode_allowed_with_feature(attached):
    attached.config.default_mode_request_user_input = True
    attached.answer_policy = "recommended"
    res = await attached.call_tool("request_user_input", ARGS, mode="default")
    assert res.output == '{"answers":{"confirm_path":{"answers":["Yes (Recommended)"]}}}'


async def test_custom_payload_is_unsupported(session):
    from codex_nb.tools.handlers.request_user_input import RequestUserInputTool
    from codex_nb.tools.invocation import ToolInvocation
    from codex_nb.tools.payload import Payload, ToolCall

    tool = RequestUserInputTool(session.config)
    call = ToolCall(tool_name=tool.tool_name, call_id="c", payload=Payload.custom("{}"))
    turn = session._new_turn(ModeKind.PLAN)
    with pytest.raises(cx.tools.RespondToModel, match="^request_user_input handler received unsupported payload$"):
        await tool.handle(ToolInvocation(call=call, tool=tool, turn=turn, cancel=turn.cancel.child()))


async def test_root_thread_check_precedes_mode(session):
    from codex_nb.tools.handlers.request_user_input import RequestUserInputTool
    from codex_nb.tools.invocation import ToolInvocation
    from codex_nb.tools.payload import Payload, ToolCall

    tool = RequestUserInputTool(session.config)
    turn = session._new_turn(ModeKind.DEFAULT)
    turn.is_root_thread = False
    call = ToolCall(tool_name=tool.tool_name, call_id="c", payload=Payload.function("{}"))
    with pytest.raises(cx.tools.RespondToModel, match="^request_user_input can only be used by the root thread$"):
        await tool.handle(ToolInvocation(call=call, tool=tool, turn=turn, cancel=turn.cancel.child()))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("{", "failed to parse function arguments: "),
        ({}, "failed to parse function arguments: missing field `questions` at line 1 column 2"),
        ({"questions": [{"id": "a"}]}, "failed to parse function arguments: missing field `header`"),
        (
            {"questions": [], "autoResolutionMs": -5},
            "failed to parse function arguments: invalid value: integer `-5`, expected u64",
        ),
        (
            {"questions": [], "autoResolutionMs": 1.5},
            "failed to parse function arguments: invalid type: floating point `1.5`, expected u64",
        ),
        (
            {"questions": [{**QUESTION, "isSecret": "yes"}]},
            'failed to parse function arguments: invalid type: string "yes", expected a boolean',
        ),
    ],
)
async def test_parse_errors(session, args, message):
    res = await session.call_tool("request_user_input", args, mode="plan")
    assert res.output.startswith(message)
    assert res.success is False


@pytest.mark.parametrize("options", [None, []])
async def test_options_missing_or_empty(session, options):
    question = {k: v for k, v in QUESTION.items() if k != "options"}
    if options is not None:
        question["options"] = options
    res = await session.call_tool("request_user_input", {"questions": [question, QUESTION]}, mode="plan")
    assert res.output == "request_user_input requires non-empty options for every question"


async def test_unknown_keys_ignored_isother_forced_secret_kept(attached):
    attached.answer_policy = "deny"
    args = {"questions": [{**QUESTION, "isOther": False, "isSecret": True, "color": "red"}], "extra": 1}
    res = await attached.call_tool("request_user_input", args, mode="plan", call_id="c1")
    assert res.output == '{"answers":{}}'
    event = res.events[0]
    assert event.msg.to_wire() == {
        "type": "request_user_input",
        "call_id": "c1",
        "turn_id": event.turn_id,
        "questions": [
            {
                "id": "confirm_path",
                "header": "Confirm",
                "question": "Proceed with the plan?",
                "isOther": True,
                "isSecret": True,
                "options": QUESTION["options"],
            }
        ],
        "isBlocking": True,
    }


async def test_empty_questions_pass(attached):
    attached.answer_policy = "recommended"
    res = await attached.call_tool("request_user_input", {"questions": []}, mode="plan")
    assert res.output == '{"answers":{}}'


# -- answer flow ------------------------------------------------------------------------------
async def test_widget_answer_flow_and_event_log(attached, no_leaked_tasks):
    rec = cx.testing.RecordingSubscriber(attached)
    task = asyncio.ensure_future(
        attached.call_tool("request_user_input", {**ARGS, "autoResolutionMs": 60000}, mode="plan", call_id="call1")
    )
    (pending,) = await wait_pending(attached)
    assert pending.id == "req-1" and pending.call_id == "call1"
    attached.frontend_requests.answer("req-1", {"answers": {"confirm_path": {"answers": ["yes"]}}})
    res = await task
    assert res.output == '{"answers":{"confirm_path":{"answers":["yes"]}}}'
    assert res.success is True
    assert rec.wire() == [
        {
            "id": pending.turn_id,
            "msg": {
                "type": "request_user_input",
                "call_id": "call1",
                "turn_id": pending.turn_id,
                "questions": [
                    {
                        "id": "confirm_path",
                        "header": "Confirm",
                        "question": "Proceed with the plan?",
                        "isOther": True,
                        "isSecret": False,
                        "options": QUESTION["options"],
                    }
                ],
                "isBlocking": False,
                "autoResolutionMs": 60000,
            },
        },
        {
            "id": pending.turn_id,
            "msg": {
                "type": "frontend_request_resolved",
                "request_id": "req-1",
                "kind": "user_input",
                "call_id": "call1",
                "outcome": "answered",
            },
        },
    ]
    assert attached.frontend_requests.pending == []
    assert pending.future.done()


async def test_codex_op_answer_by_turn_id(attached):
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    attached.frontend_requests.answer_user_input(pending.turn_id, {"confirm_path": ["No", "user_note: later"]})
    assert (await task).output == '{"answers":{"confirm_path":{"answers":["No","user_note: later"]}}}'
    with pytest.raises(AnswerError, match="no pending user_input request with turn_id"):
        attached.frontend_requests.answer_user_input(pending.turn_id, {})


async def test_answer_from_another_thread(attached):
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    await asyncio.to_thread(attached.frontend_requests.answer, pending.id, {"confirm_path": "No"})
    assert (await task).output == '{"answers":{"confirm_path":{"answers":["No"]}}}'


async def test_two_pending_at_once(attached):
    t1 = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan", call_id="a"))
    t2 = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan", call_id="b"))
    first, second = await wait_pending(attached, 2)
    attached.frontend_requests.answer(second.id, {"confirm_path": "No"})
    attached.frontend_requests.answer(first.id, {"confirm_path": "Yes (Recommended)"})
    assert (await t1).output.endswith('["Yes (Recommended)"]}}}')
    assert (await t2).output.endswith('["No"]}}}')


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("yes", "a question answer must be a mapping"),
        ({"nope": "x"}, "answer for unknown question id 'nope'"),
        ({"confirm_path": 3}, "must be a string or a list of strings"),
        ({"answers": {"confirm_path": ["x"]}}, "must be {'answers': [strings]}"),
        ({"confirm_path": "x" * 10_001}, "longer than 10000 characters"),
    ],
)
async def test_malformed_answers_rejected_request_stays_pending(attached, response, message):
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    with pytest.raises(AnswerError, match=message.replace("[", r"\[").replace("{", r"\{")):
        attached.frontend_requests.answer(pending.id, response)
    assert attached.frontend_requests.pending == [pending]
    attached.frontend_requests.answer(pending.id, {})
    assert (await task).output == '{"answers":{}}'


async def test_unknown_and_settled_ids(attached):
    broker = attached.frontend_requests
    with pytest.raises(AnswerError, match="unknown request id 'req-9'; pending ids: none"):
        broker.answer("req-9", {})
    with pytest.raises(AnswerError, match="request id must be a string, got int"):
        broker.answer(7, {})
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    broker.answer(pending.id, {})
    with pytest.raises(AnswerError, match=r"request req-1 was already settled \(answered\); this answer is ignored"):
        broker.answer(pending.id, {})
    await task


async def test_second_request_in_turn_replaces_first(attached):
    """The waiter is keyed by turn id: a second question in the same turn drops the first."""
    broker = attached.frontend_requests
    model = cx.ScriptedModel(
        [
            [cx.function_call("request_user_input", ARGS, call_id="q1")],
            [cx.assistant_message("done")],
        ]
    )
    handle = attached.start_turn("go", model=model, mode="plan")
    (first,) = await wait_pending(attached)
    from codex_nb.frontend.requests import RequestKind
    from codex_nb.protocol.frontend import RequestUserInputEvent

    second = broker.open(
        RequestKind.USER_INPUT,
        turn_id=first.turn_id,
        call_id="q2",
        msg=RequestUserInputEvent(call_id="q2", turn_id=first.turn_id, questions=[]),
    )
    result = await handle
    assert result.outputs()["q1"] == CANCELLED
    assert broker.outcome(first.id) is Outcome.REPLACED
    broker.cancel(second.id)
    await asyncio.sleep(0)  # one loop turn: the settlement is delivered with call_soon_threadsafe
    assert second.future.done()


# -- autoResolutionMs -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "clamped"),
    [
        (1, 60000),
        (59999, 60000),
        (60000, 60000),
        (120000, 120000),
        (240000, 240000),
        (240001, 240000),
        (10**12, 240000),
    ],
)
async def test_auto_resolution_clamped_and_elapses_to_empty_answers(attached, given, clamped):
    timer = attached.frontend_requests._timer
    task = asyncio.ensure_future(
        attached.call_tool("request_user_input", {**ARGS, "autoResolutionMs": given}, mode="plan")
    )
    (pending,) = await wait_pending(attached)
    assert pending.msg.autoResolutionMs == clamped
    assert timer.scheduled[-1][0] == clamped / 1000
    timer.fire()
    res = await task
    assert res.output == '{"answers":{}}' and res.success is True
    assert attached.frontend_requests.outcome(pending.id) is Outcome.AUTO_RESOLVED
    assert res.events[-1].msg.outcome == "auto_resolved"


async def test_answer_cancels_auto_resolution_timer(attached):
    timer = attached.frontend_requests._timer
    task = asyncio.ensure_future(
        attached.call_tool("request_user_input", {**ARGS, "autoResolutionMs": 60000}, mode="plan")
    )
    (pending,) = await wait_pending(attached)
    attached.frontend_requests.answer(pending.id, {})
    await task
    assert timer.scheduled[-1][2] == [True]  # cancelled
    assert attached.frontend_requests.auto_resolve(pending.id) is False


async def test_no_timer_without_auto_resolution_or_when_not_forwarded(attached):
    timer = attached.frontend_requests._timer
    attached.config.forward_auto_resolution = False
    task = asyncio.ensure_future(
        attached.call_tool("request_user_input", {**ARGS, "autoResolutionMs": 90000}, mode="plan")
    )
    (pending,) = await wait_pending(attached)
    assert "autoResolutionMs" not in pending.msg.to_wire() and timer.scheduled == []
    attached.frontend_requests.answer(pending.id, {})
    await task


async def test_real_loop_timer_is_scheduled_and_cancelled(rendered_frontend):
    s = cx.Session()
    s.frontend_requests.attach(rendered_frontend)
    task = asyncio.ensure_future(s.call_tool("request_user_input", {**ARGS, "autoResolutionMs": 60000}, mode="plan"))
    (pending,) = await wait_pending(s)
    assert len(pending._cancel_timers) == 1
    s.frontend_requests.answer(pending.id, {})
    await task
    assert pending._cancel_timers == []


# -- interrupt ------------------------------------------------------------------------------------
async def test_interrupt_aborts_call_and_clears_request(attached, no_leaked_tasks):
    rec = cx.testing.RecordingSubscriber(attached)
    model = cx.ScriptedModel([[cx.function_call("request_user_input", ARGS, call_id="q1")]])
    handle = attached.start_turn("ask me", model=model, mode="plan")
    (pending,) = await wait_pending(attached)
    assert handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    out = result.outputs()["q1"]
    assert out.startswith("aborted by user after ") and out.endswith("s")
    assert attached.frontend_requests.pending == []
    assert attached.frontend_requests.outcome(pending.id) is Outcome.CANCELLED
    assert pending.future.done()
    resolved = rec.of_type("frontend_request_resolved")
    assert [e.msg.outcome for e in resolved] == ["cancelled"]
    assert rec.types.index("frontend_request_resolved") < rec.types.index("turn_aborted")
    with pytest.raises(AnswerError, match="already settled \\(cancelled\\)"):
        attached.frontend_requests.answer(pending.id, {})


async def test_cancelled_without_abort_returns_cancelled_message(attached):
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    assert attached.frontend_requests.cancel_turn(pending.turn_id) == 1
    assert (await task).output == CANCELLED


# -- headless -------------------------------------------------------------------------------------
async def test_no_frontend_no_policy_fails_fast(session, no_leaked_tasks):
    res = await session.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output.startswith("request_user_input could not be answered: no prompts widget is displayed")
    assert "CODEX_NB_ANSWER_POLICY=deny|recommended|/path/to/answers.json" in res.output
    assert [e.msg.type for e in res.events] == ["request_user_input", "frontend_request_resolved", "warning"]
    assert session.frontend_requests.pending == []


async def test_displayed_widget_without_view_fails_after_grace(session):
    class Displayed:
        alive = True
        ready = False

    session.frontend_requests.attach(Displayed())
    timer = session.frontend_requests._timer
    task = asyncio.ensure_future(session.call_tool("request_user_input", ARGS, mode="plan"))
    await timer.added.wait()
    assert timer.scheduled[-1][0] == session.frontend_requests.view_grace
    timer.fire()
    assert (await task).output.startswith("request_user_input could not be answered")


async def test_env_policy_used_without_frontend(session, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "recommended")
    res = await session.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output == '{"answers":{"confirm_path":{"answers":["Yes (Recommended)"]}}}'
    monkeypatch.setenv(ENV_VAR, "deny")
    assert (await session.call_tool("request_user_input", ARGS, mode="plan")).output == '{"answers":{}}'


async def test_env_policy_json_file(session, monkeypatch, tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{"confirm_path": "No"}]))
    monkeypatch.setenv(ENV_VAR, str(path))
    assert (await session.call_tool("request_user_input", ARGS, mode="plan")).output.endswith('["No"]}}}')
    res = await session.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output.startswith("Fatal error: scripted answer policy ran out: 1 answer(s) were scripted")
    assert session.frontend_requests.pending == []


async def test_bad_env_policy_is_a_clear_error(session, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "maybe")
    res = await session.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output.startswith("Fatal error: CODEX_NB_ANSWER_POLICY='maybe' is not a policy; use 'deny'")


async def test_ready_widget_wins_over_env_policy(attached, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "deny")
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    (pending,) = await wait_pending(attached)
    attached.frontend_requests.answer(pending.id, {"confirm_path": "No"})
    assert (await task).output.endswith('["No"]}}}')


async def test_explicit_policies(attached):
    attached.answer_policy = AnswerPolicy.scripted([{"confirm_path": "No"}])
    assert (await attached.call_tool("request_user_input", ARGS, mode="plan")).output.endswith('["No"]}}}')
    seen = []

    async def ask(request):
        seen.append(request.msg.questions[0].id)
        return {"confirm_path": ["Yes (Recommended)", "user_note: fine"]}

    attached.answer_policy = ask
    res = await attached.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output.endswith('["Yes (Recommended)","user_note: fine"]}}}') and seen == ["confirm_path"]
    attached.answer_policy = lambda request: "garbage"
    res = await attached.call_tool("request_user_input", ARGS, mode="plan")
    assert res.output.startswith(
        "Fatal error: answer policy AnswerPolicy.callback(<lambda>) gave an unusable answer to "
        "request_user_input (call "
    )
    assert attached.frontend_requests.pending == []


def test_policy_constructors_validate():
    with pytest.raises(AnswerPolicyError, match="takes a list of answers"):
        AnswerPolicy.scripted("deny")
    with pytest.raises(AnswerPolicyError, match="needs a callable"):
        AnswerPolicy.callback(3)
    with pytest.raises(AnswerPolicyError, match="answer_policy must be None"):
        AnswerPolicy.from_value(3.5)
    assert repr(AnswerPolicy.deny()) == "AnswerPolicy.deny()"
    assert AnswerPolicy.from_spec("none") is None


async def test_fifty_questions(attached):
    questions = [{**QUESTION, "id": f"q{i}"} for i in range(50)]
    attached.answer_policy = "recommended"
    res = await attached.call_tool("request_user_input", {"questions": questions}, mode="plan")
    answers = json.loads(res.output)["answers"]
    assert len(answers) == 50 and answers["q49"] == {"answers": ["Yes (Recommended)"]}


async def test_plan_mode_turn_receives_answer(attached, no_leaked_tasks):
    attached.answer_policy = "recommended"
    model = cx.ScriptedModel(
        [
            [cx.function_call("request_user_input", ARGS, call_id="q1")],
            lambda req: [cx.assistant_message(f"got {req.outputs()['q1']}")],
        ]
    )
    result = await attached.run_turn("plan it", model=model, mode="plan")
    assert result.status == "completed"
    assert result.last_agent_message == 'got {"answers":{"confirm_path":{"answers":["Yes (Recommended)"]}}}'


def test_broker_has_no_leftovers_after_loop_closed():
    broker = FrontendRequests()

    async def open_one():
        from codex_nb.protocol.frontend import RequestUserInputEvent
        from codex_nb.frontend.requests import RequestKind

        return broker.open(
            RequestKind.USER_INPUT,
            turn_id="t",
            call_id="c",
            msg=RequestUserInputEvent(call_id="c", turn_id="t", questions=[]),
        )

    request = asyncio.run(open_one())
    with pytest.raises(AnswerError, match="a question answer must be a mapping"):
        broker.answer(request.id, None)
    broker.answer(request.id, {})  # the loop is closed: settles without raising
    assert broker.pending == []


async def test_next_pending_waits_for_a_request(attached):
    waiter = asyncio.ensure_future(attached.frontend_requests.next_pending())
    task = asyncio.ensure_future(attached.call_tool("request_user_input", ARGS, mode="plan"))
    request = await waiter
    assert attached.frontend_requests.pending == [request]
    attached.frontend_requests.answer(request.id, {})
    await task
    assert attached.frontend_requests._listeners == []


def test_codex_169_profile_has_no_auto_resolution_and_the_notebook_profile_keeps_it() -> None:
    # Codex 0.169 (conformance rui_*): no autoResolutionMs in the spec, the key is ignored.
    from codex_nb.tools.handlers.request_user_input import RequestUserInputTool

    toml = cx.Config.from_toml("")
    spec = RequestUserInputTool(toml).spec()
    assert "autoResolutionMs" not in spec["parameters"]["properties"]
    assert spec["description"] == (
        "Request user input for one to three short questions and wait for the response. "
        "This tool is only available in Plan mode."
    )
    assert cx.Config.from_toml("[codex_nb]\nauto_resolution = true\n").forward_auto_resolution
    assert "autoResolutionMs" in RequestUserInputTool(cx.Config()).spec()["parameters"]["properties"]


async def test_codex_169_profile_ignores_auto_resolution_ms() -> None:
    session = cx.Session(cx.Config.from_toml(""))
    session.answer_policy = "deny"
    result = await session.call_tool("request_user_input", {**ARGS, "autoResolutionMs": -5}, mode="plan")
    assert result.output == '{"answers":{}}'
    pending = [e for e in result.events if e.msg.type == "request_user_input"]
    assert pending and "autoResolutionMs" not in pending[0].msg.model_dump(mode="json")
