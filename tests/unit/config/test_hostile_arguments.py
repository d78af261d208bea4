"""What a hostile model can put in its tool calls: numbers and text Python reads more leniently
than Codex (serde_json), reused call ids, malformed items, and API misuse from a notebook.

Expected strings were taken from the real codex 0.169.0 binary against a local Responses server.
"""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.config.code_mode import CodeModeSettings
from codex_nb.config import Config
from codex_nb.runtime.history import repair_history

BIG = "9" * 5000


@pytest.fixture
def code_session():
    session = cx.Session(Config(code_mode=CodeModeSettings(enabled=True)))
    yield session
    for finalizer in session.planner.finalizers:
        finalizer.close()


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ('{"cell_id":"1","yield_time_ms":1e400}', "number out of range at line 1 column 36"),
        ('{"cell_id":"1","yield_time_ms":NaN}', "expected value at line 1 column 32"),
        ('{"cell_id":"1","yield_time_ms":Infinity}', "expected value at line 1 column 32"),
        ('{"cell_id":"1","yield_time_ms":%s}' % BIG, "number out of range at line 1 column 5031"),
        ('{"cell_id":"1","max_tokens":%s}' % BIG, "number out of range at line 1 column 5028"),
        ('{"cell_id":"1","yield_time_ms":1.5}', "invalid type: floating point `1.5`, expected u64 at line 1 column 34"),
        ('{"cell_id":"1","yield_time_ms":-1}', "invalid value: integer `-1`, expected u64 at line 1 column 33"),
        (
            '{"cell_id":"1","yield_time_ms":1e10}',
            "invalid type: floating point `10000000000.0`, expected u64 at line 1 column 35",
        ),
        ('{"cell_id":"\\ud800"}', "unexpected end of hex escape at line 1 column 19"),
    ],
)
async def test_wait_rejects_numbers_and_text_codex_cannot_parse(code_session, arguments, error):
    result = await code_session.call_tool("wait", arguments, call_id="w")
    assert result.output == f"failed to parse function arguments: {error}"


@pytest.mark.parametrize(
    ("step", "error"),
    [
        ("\\ud800", "unexpected end of hex escape at line 1 column 25"),
        ("a\\udc00b", "lone leading surrogate in hex escape at line 1 column 25"),
    ],
)
async def test_lone_surrogates_in_arguments_are_parse_errors(step, error):
    session = cx.Session()
    result = await session.call_tool("update_plan", '{"plan":[{"step":"%s","status":"pending"}]}' % step)
    assert result.output == f"failed to parse function arguments: {error}"
    assert result.events == []
    paired = await session.call_tool("update_plan", '{"plan":[{"step":"\\ud83d\\ude00","status":"pending"}]}')
    assert paired.output == "Plan updated" and paired.events[0].msg.plan[0].step == "\U0001f600"


async def test_huge_integers_reach_python_tools_and_hooks_as_parse_errors():
    session = cx.Session()
    seen = []

    @session.pre_tool_use(matcher="count")
    def observe(hook_input):
        seen.append(hook_input.tool_input)

    @session.tool
    async def count(n: int) -> str:
        "Counts."
        return str(n)

    result = await session.call_tool("count", '{"n": %s}' % BIG)
    assert result.output == "failed to parse function arguments: number out of range at line 1 column 5006"
    assert seen == ['{"n": %s}' % BIG]  # the hook sees the raw text, as for any unparsable arguments
    assert (await session.call_tool("count", '{"n": 12345678901234567890}')).output == "12345678901234567890"


async def test_reused_call_ids_each_get_their_output():
    session = cx.Session()
    plan = [{"step": s, "status": "pending"} for s in "abc"]
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [p]}, call_id="same") for p in plan],
            [cx.assistant_message("ok")],
        ],
        record_requests=True,
    )
    await session.run_turn("go", model=model)
    outputs = [i for i in model.requests[1].items if i["type"] == "function_call_output"]
    assert [(o["call_id"], o["output"]) for o in outputs] == [("same", "Plan updated")] * 3
    assert repair_history(session.history) == session.history


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        (
            {"type": "function_call", "name": "update_plan", "arguments": "{}", "call_id": None},
            "function_call has call_id None, not a string",
        ),
        (
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": 5}]},
            "message content part 0 has text 5, not a string",
        ),
        ({"type": "message", "role": "assistant", "content": "hi"}, "message content must be a list of parts"),
    ],
)
async def test_malformed_model_items_are_dropped_with_a_warning(item, problem):
    session = cx.Session()
    rec = cx.testing.RecordingSubscriber(session)
    turn = await session.run_turn("go", model=cx.ScriptedModel([[item]]))
    assert turn.status == "completed"
    assert [i["type"] for i in turn.items] == ["message"] and turn.items[0]["role"] == "user"
    assert [e.msg.message for e in rec.events if e.msg.type == "warning"] == [
        f"dropped a model output item that is not a valid Responses API item ({problem}), as Codex does"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, {}), "call_tool needs a tool name string, got 5"),
        ((None, {}), "call_tool needs a tool name string, got None"),
        (
            ("update_plan", {"plan": {1, 2}}),
            "call_tool arguments must be JSON (dict, list or raw text): Object of type "
            "set is not JSON serializable; convert sets, bytes and other objects first",
        ),
    ],
)
async def test_call_tool_misuse_raises_a_codex_nb_error(args, message):
    session = cx.Session()
    with pytest.raises(cx.errors.ToolCallError) as caught:
        await session.call_tool(*args)
    assert str(caught.value) == message
    assert isinstance(caught.value, cx.CodexNbError)
