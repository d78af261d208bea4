"""Code Mode: exec scripts with nested calls, output, and errors."""

from __future__ import annotations

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE

CM = UPDATE_PLAN_ON + "\n[features]\ncode_mode = true\n"
CM_ONLY = UPDATE_PLAN_ON + "\n[features]\ncode_mode = true\ncode_mode_only = true\n"


def exec_(
    name: str, source: str, *, config: str = CM, more: list | None = None, racy: tuple[str, ...] = (), why: str = ""
) -> Scenario:
    item = {"type": "custom_tool_call", "name": "exec", "input": source, "call_id": "call_1"}
    responses = [[item], *(more or []), DONE]
    return Scenario(name=name, config=config, responses=responses, tags=("code_mode",), racy=racy, why=why)


PLAN = '{plan: [{step: "a", status: "in_progress"}]}'

SCENARIOS = [
    exec_("cm_text_output", 'text("hello from exec");'),
    exec_("cm_nested_update_plan", f"const r = await tools.update_plan({PLAN});\ntext(JSON.stringify(r));"),
    exec_("cm_nested_bad_plan", "try { await tools.update_plan({plan: 5}); } catch (e) { text(String(e)); }"),
    exec_("cm_nested_unknown_tool", "await tools.no_such_tool({});"),
    exec_("cm_throw_error", 'throw new Error("boom");'),
    exec_("cm_throw_string", 'throw "plain";'),
    exec_("cm_syntax_error", "this is not javascript"),
    exec_("cm_reference_error", "undefinedThing.call();"),
    exec_("cm_empty_source", ""),
    exec_("cm_console_log", 'console.log("logged"); text("after");'),
    exec_("cm_exit_early", 'text("before"); exit(); text("after");'),
    exec_("cm_two_nested_calls", f"await tools.update_plan({PLAN});\nawait tools.update_plan({PLAN});\ntext('two');"),
    exec_("cm_text_object", "text({a: 1, b: [2, 3]});"),
    exec_("cm_pragma_yield", '// @exec: {"yield_time_ms": 5000}\ntext("pragma");'),
    exec_("cm_bad_pragma", '// @exec: {"nope": 1}\ntext("x");'),
    exec_("cm_error_in_function", 'function g() {\n  throw new Error("deep");\n}\ng();'),
    exec_("cm_error_after_await", f'await tools.update_plan({PLAN});\nthrow new RangeError("late");'),
    exec_("cm_error_line_three", "const a = 1;\nconst b = 2;\nnull.x;"),
    exec_("cm_throw_object", "throw {code: 1};"),
    exec_("cm_syntax_error_line_two", "const a = 1;\nconst = 2;"),
    exec_("cm_nested_rejection_uncaught", "await tools.update_plan({plan: 5});"),
    exec_("cm_notify", 'notify("early news");\nawait new Promise((r) => setTimeout(r, 50));\ntext("done");'),
    exec_("cm_store_load", 'store("k", {a: 1}); text(JSON.stringify(load("k"))); text(String(load("missing")));'),
    exec_("cm_all_tools_update_plan", "text(JSON.stringify(ALL_TOOLS.filter((t) => t.name === 'update_plan')));"),
    exec_(
        "cm_yield_then_finish",
        'text("part one"); yield_control(); text("part two");',
        more=[[{"type": "function_call", "name": "wait", "arguments": '{"cell_id":"1"}', "call_id": "w1"}]],
    ),
    exec_(
        "cm_unawaited_promise",
        'tools.update_plan({plan: []}); text("not awaited");',
        racy=("plans",),
        why="the binary runs the unawaited update_plan alongside the cell's end: usually the cell ends "
        "first (no plan, as recorded), but on a loaded machine the plan sometimes lands first (seen in "
        "one of five loaded runs)",
    ),
    exec_("cm_image_bad_url", 'image("not a data url");'),
    exec_("cm_text_undefined_null", "text(undefined); text(null); text(true); text(42);"),
    exec_(
        "cm_nested_request_user_input_default_mode",
        "try { await tools.request_user_input({questions: []}); } catch (e) { text(String(e)); }",
    ),
    exec_("cm_nested_string_input", 'const r = await tools.update_plan("not an object"); text(r);'),
    Scenario(
        name="cm_only_nested_plan",
        config=CM_ONLY,
        tags=("code_mode",),
        responses=[
            [
                {
                    "type": "custom_tool_call",
                    "name": "exec",
                    "call_id": "call_1",
                    "input": f"await tools.update_plan({PLAN}); text('ok');",
                }
            ],
            DONE,
        ],
        skip=("tool_spec[default:exec]",),
        why="the binary nests its own shell, agent and goal tools; each tool both nest is compared "
        "(exec_nested_tool) and so are the template and guidance (cm_text_output)",
    ),
    # exec called with a function_call payload instead of freeform input
    Scenario(
        name="cm_exec_as_function_call",
        config=CM,
        tags=("code_mode",),
        responses=[
            [{"type": "function_call", "name": "exec", "arguments": '{"code":"text(1)"}', "call_id": "call_1"}],
            DONE,
        ],
    ),
]
WAIT_UNKNOWN = Scenario(
    name="cm_wait_unknown_cell",
    config=CM,
    tags=("code_mode",),
    responses=[[{"type": "function_call", "name": "wait", "arguments": '{"cell_id":"nope"}', "call_id": "w1"}], DONE],
)
HOOKED = Scenario(
    name="cm_nested_call_fires_pre_hook",
    config=CM,
    tags=("code_mode", "hooks"),
    hooks={
        "hooks": {
            "PreToolUse": [{"matcher": "update_plan", "hooks": [{"type": "command", "command": "{scripts}/h.sh"}]}]
        }
    },
    scripts={"h.sh": "#!/bin/sh\ncat > /dev/null\necho 'nested blocked' >&2\nexit 2\n"},
    responses=[
        [
            {
                "type": "custom_tool_call",
                "name": "exec",
                "call_id": "call_1",
                "input": f"try {{ await tools.update_plan({PLAN}); }} catch (e) {{ text(String(e)); }}",
            }
        ],
        DONE,
    ],
)
CM_CLOCK = CM + "\n[features.current_time_reminder]\nenabled = true\nsleep_tool = true\n"
SCENARIOS += [
    WAIT_UNKNOWN,
    HOOKED,
    exec_(
        "cm_nested_clock_curr_time",
        "const r = await tools.clock__curr_time({}); text(Object.keys(r).join(','));",
        config=CM_CLOCK,
    ),
    exec_("cm_nested_sleep_is_model_only", "text(typeof tools.clock__sleep);", config=CM_CLOCK),
    Scenario(
        name="cm_plan_mode_nested_update_plan",
        config=CM,
        mode="plan",
        tags=("code_mode",),
        responses=[
            [
                {
                    "type": "custom_tool_call",
                    "name": "exec",
                    "call_id": "call_1",
                    "input": f"try {{ await tools.update_plan({PLAN}); }} catch (e) {{ text(String(e)); }}",
                }
            ],
            DONE,
        ],
    ),
]
