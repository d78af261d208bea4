"""Code Mode: exec scripts with nested calls, output, and errors."""

from __future__ import annotations

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE

CM = UPDATE_PLAN_ON + "\n[features]\ncode_mode = true\n"
CM_ONLY = UPDATE_PLAN_ON + "\n[features]\ncode_mode = true\ncode_mode_only = true\n"


def exec_(name: str, source: str, *, config: str = CM, more: list | None = None) -> Scenario:
    item = {"type": "custom_tool_call", "name": "exec", "input": source, "call_id": "call_1"}
    return Scenario(name=name, config=config, responses=[[item], *(more or []), DONE], tags=("code_mode",))


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
    exec_("cm_text_object", 'text({a: 1, b: [2, 3]});'),
    exec_("cm_pragma_yield", '// @exec: {"yield_time_ms": 5000}\ntext("pragma");'),
    exec_("cm_bad_pragma", '// @exec: {"nope": 1}\ntext("x");'),
    exec_("cm_error_in_function", 'function g() {\n  throw new Error("deep");\n}\ng();'),
    exec_("cm_error_after_await", f'await tools.update_plan({PLAN});\nthrow new RangeError("late");'),
    exec_("cm_error_line_three", "const a = 1;\nconst b = 2;\nnull.x;"),
    exec_("cm_throw_object", "throw {code: 1};"),
    exec_("cm_syntax_error_line_two", "const a = 1;\nconst = 2;"),
    exec_("cm_nested_rejection_uncaught", "await tools.update_plan({plan: 5});"),
    exec_("cm_nested_string_input", 'const r = await tools.update_plan("not an object"); text(r);'),
    Scenario(name="cm_only_nested_plan", config=CM_ONLY, tags=("code_mode",),
             responses=[[{"type": "custom_tool_call", "name": "exec", "call_id": "call_1",
                          "input": f"await tools.update_plan({PLAN}); text('ok');"}], DONE],
             skip=("tool_spec[default:exec]",),
             why="the binary nests its own shell, agent and goal tools; each tool both nest is compared "
                 "(exec_nested_tool) and so are the template and guidance (cm_text_output)"),
    exec_("cm_exec_as_function_call", "", more=None),
]
# exec called with a function_call payload instead of freeform input
SCENARIOS[-1] = Scenario(
    name="cm_exec_as_function_call", config=CM,
    responses=[[{"type": "function_call", "name": "exec", "arguments": '{"code":"text(1)"}', "call_id": "call_1"}],
               DONE],
)
