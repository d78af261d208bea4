"""JSON Schema -> TypeScript rendering and the exec description."""

from __future__ import annotations

import pytest

from codex_nb.code_mode.description import (
    DEFERRED_NESTED_TOOLS_GUIDANCE,
    NestedToolDefinition,
    build_exec_description,
    code_mode_sample,
    exec_description_template,
    tool_declaration,
    wait_description,
)
from codex_nb.code_mode.pragma import EMPTY_SOURCE_ERROR, PragmaError, parse_exec_source
from codex_nb.code_mode.specs import EXEC_GRAMMAR, exec_spec, wait_spec
from codex_nb.code_mode.typescript import normalize_identifier, render_json_schema_to_typescript as ts
from codex_nb.tools.names import ToolName

UPDATE_PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string", "description": "Optional explanation for this plan update."},
        "plan": {
            "type": "array",
            "description": "The list of steps",
            "items": {
                "type": "object",
                "properties": {
                    "step": {"type": "string", "description": "Task step text."},
                    "status": {
                        "type": "string",
                        "description": "Step status.",
                        "enum": ["pending", "in_progress", "completed"],
                    },
                },
                "required": ["step", "status"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["plan"],
    "additionalProperties": False,
}
UPDATE_PLAN_DESCRIPTION = (
    "Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and "
    "status.\nAt most one step can be in_progress at a time.\n"
)


def mcp_result(structured):
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": {"type": "object"}},
            "structuredContent": structured,
            "isError": {"type": "boolean"},
            "_meta": {"type": "object"},
        },
        "required": ["content"],
        "additionalProperties": False,
    }


def tool(name, *, ns=None, description="d", kind="function", input_schema=None, output_schema=None, ns_desc=""):
    return NestedToolDefinition(
        tool_name=ToolName.of(name, ns),
        description=description,
        kind=kind,
        input_schema=input_schema,
        output_schema=output_schema,
        namespace_description=ns_desc,
    )


# -- Codex's renderer, one test per schema form ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"const": "a"}, '"a"'),
        ({"enum": ["a", "b"]}, '"a" | "b"'),
        ({"enum": [1, None, True]}, "1 | null | true"),
        ({"type": "string", "enum": ["x"]}, '"x"'),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
        ({"oneOf": [{"type": "number"}, {"type": "boolean"}]}, "number | boolean"),
        ({"allOf": [{"type": "string"}, {"const": "a"}]}, 'string & "a"'),
        ({"type": "string"}, "string"),
        ({"type": "number"}, "number"),
        ({"type": "integer"}, "number"),
        ({"type": "boolean"}, "boolean"),
        ({"type": "null"}, "null"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": "array", "items": {"type": "string"}}, "Array<string>"),
        ({"type": "array"}, "unknown[]"),
        ({"prefixItems": [{"type": "string"}, {"type": "number"}]}, "[string, number]"),
        ({"type": "object", "properties": {}, "additionalProperties": False}, "{}"),
        ({"type": "object", "additionalProperties": False}, "{}"),
        ({"type": "object"}, "{ [key: string]: unknown; }"),
        ({"type": "object", "properties": {}}, "{ [key: string]: unknown; }"),
        (
            {"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}, "required": ["a"]},
            "{ a: string; b?: number; }",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": True,
            },
            "{ a: string; [key: string]: unknown; }",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": {"type": "number"},
            },
            "{ a: string; [key: string]: number; }",
        ),
        (
            {
                "type": "object",
                "properties": {"my-key": {"type": "string"}},
                "required": ["my-key"],
                "additionalProperties": False,
            },
            '{ "my-key": string; }',
        ),
        ({"properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}, "{ a: string; }"),
        ({"type": "frobnicate"}, "unknown"),
        ({}, "unknown"),
        (True, "unknown"),
        (False, "never"),
        ("nonsense", "unknown"),
    ],
)
def test_schema_rows(schema, expected):
    assert ts(schema) == expected


def test_multiline_object_with_property_comments_not_reindented():
    assert ts(UPDATE_PLAN_SCHEMA) == (
        "{\n  // Optional explanation for this plan update.\n  explanation?: string;\n"
        "  // The list of steps\n  plan: Array<{\n  // Step status.\n"
        '  status: "pending" | "in_progress" | "completed";\n  // Task step text.\n  step: string;\n}>;\n}'
    )


def test_multiline_description_lines_trimmed_and_blank_dropped():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "description": " one \n\n two "}, "b": {"type": "number"}},
        "additionalProperties": True,
    }
    assert ts(schema) == "{\n  // one\n  // two\n  a?: string;\n  b?: number;\n  [key: string]: unknown;\n}"


def test_local_refs_expand_twice_per_path_then_unknown():
    schema = {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/Node"}},
        "required": ["n"],
        "additionalProperties": False,
        "$defs": {
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}, "additionalProperties": False}
        },
    }
    assert ts(schema) == "{ n: { next?: { next?: unknown; }; }; }"


def test_ref_with_escaped_pointer_and_sibling_intersection():
    assert ts({"$ref": "#/$defs/Label", "enum": ["A"], "$defs": {"Label": {"type": "string"}}}) == '(string) & ("A")'
    assert ts({"$ref": "#/$defs/A~1B~0c", "$defs": {"A/B~c": {"type": "boolean"}}}) == "boolean"
    assert ts({"$ref": "#/$defs/Missing"}) == "unknown"
    assert ts({"$ref": "https://example.com/remote"}) == "unknown"
    assert ts({"$ref": "#/$defs/Missing", "type": "string"}) == "string"


def test_refs_capped_at_32_in_total():
    defs = {f"T{i}": {"type": "string"} for i in range(40)}
    schema = {
        "type": "object",
        "properties": {f"p{i:02}": {"$ref": f"#/$defs/T{i}"} for i in range(40)},
        "additionalProperties": False,
        "$defs": defs,
    }
    rendered = ts(schema)
    assert rendered.count("string") == 32
    assert rendered.count("unknown") == 8


def test_result_over_16000_bytes_becomes_unknown():
    big = {
        "type": "object",
        "properties": {f"p{i:04}": {"type": "string"} for i in range(1200)},
        "additionalProperties": False,
    }
    assert (
        len(
            ts(
                {
                    "type": "object",
                    "properties": {f"p{i:04}": {"type": "string"} for i in range(900)},
                    "additionalProperties": False,
                }
            ).encode()
        )
        <= 16000
    )
    assert ts(big) == "unknown"


def test_identifier_normalisation():
    assert normalize_identifier("hidden-dynamic-tool") == "hidden_dynamic_tool"
    assert normalize_identifier("mcp__ologs__get_profile") == "mcp__ologs__get_profile"
    assert normalize_identifier("9lives") == "_lives"
    assert normalize_identifier("$ok1") == "$ok1"
    assert normalize_identifier("") == "_"


# -- declarations (Codex test examples) --------------------------------------------------------
def test_hidden_dynamic_tool_declaration():
    t = tool(
        "hidden_dynamic_tool",
        description="Test tool",
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        output_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    )
    assert tool_declaration(t) == "hidden_dynamic_tool(args: { city: string; }): Promise<{ ok: boolean; }>;"
    assert code_mode_sample(t) == (
        "Test tool\n\nexec tool declaration:\n```ts\ndeclare const tools: { hidden_dynamic_tool(args: "
        "{ city: string; }): Promise<{ ok: boolean; }>; };\n```"
    )


def test_mcp_call_tool_result_declaration():
    structured = {
        "type": "object",
        "properties": {"results": {"type": "array", "items": {"$ref": "#/definitions/Result~1item~0v1"}}},
        "required": ["results"],
        "additionalProperties": False,
        "definitions": {
            "Result/item~v1": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "score": {"type": "number"}},
                "required": ["id", "score"],
                "additionalProperties": False,
            }
        },
    }
    t = tool(
        "search",
        ns="mcp__sample__",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        output_schema=mcp_result(structured),
    )
    assert tool_declaration(t) == (
        "mcp__sample__search(args: {}): Promise<CallToolResult<{ results: Array<{ id: string; score: number; }>; }>>;"
    )
    bare = tool("x", ns="mcp__s__", output_schema=mcp_result(True))
    assert tool_declaration(bare) == "mcp__s__x(args: unknown): Promise<CallToolResult>;"


def test_freeform_tool_takes_string_input():
    assert tool_declaration(tool("apply_patch", kind="freeform")) == "apply_patch(input: string): Promise<unknown>;"


# -- the exec description ------------------------------------------------------------------------
def test_template_verbatim_start_and_yield_default_substituted():
    text = exec_description_template(30000)
    assert text.startswith("Run JavaScript code to orchestrate/compose tool calls\n- Evaluates the provided")
    assert "`yield_time_ms` asks `exec` to yield early if the script is still running. Defaults to 30000 ms." in text
    assert '`// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`' in text
    assert "\n\n- Global helpers:\n- `exit()`: Immediately ends the current script successfully" in text
    assert "`setTimeout(callback: () => void, delayMs?: number)`" in text
    assert "`clearTimeout(timeoutId?: number)`" in text
    assert text.endswith("while the script keeps running.")


# Codex 0.169 (observed by tests/conformance): the guidance and the availability note follow
# the template whether or not any nested tool is deferred.
TAIL = "\n\n" + DEFERRED_NESTED_TOOLS_GUIDANCE + "\n\nTool availability can change between calls."


def test_code_mode_description_is_template_plus_guidance():
    assert (
        build_exec_description([tool("foo")], code_mode_only=False, default_yield_time_ms=30000)
        == exec_description_template(30000) + TAIL
    )


def test_deferred_guidance_two_lines():
    text = build_exec_description([], deferred=[tool("x")], code_mode_only=False)
    assert text == build_exec_description([], code_mode_only=False) == exec_description_template() + TAIL
    assert DEFERRED_NESTED_TOOLS_GUIDANCE.count("\n") == 1


def test_code_mode_only_update_plan_entry_exact():
    t = tool("update_plan", description=UPDATE_PLAN_DESCRIPTION, input_schema=UPDATE_PLAN_SCHEMA)
    text = build_exec_description([t], code_mode_only=True)
    assert text.endswith(
        "\n\n### `update_plan`\nUpdates the task plan.\nProvide an optional explanation and a list of plan items, "
        "each with a step and status.\nAt most one step can be in_progress at a time.\n\n\nexec tool declaration:\n"
        "```ts\ndeclare const tools: { update_plan(args: {\n  // Optional explanation for this plan update.\n"
        "  explanation?: string;\n  // The list of steps\n  plan: Array<{\n  // Step status.\n"
        '  status: "pending" | "in_progress" | "completed";\n  // Task step text.\n  step: string;\n}>;\n'
        "}): Promise<unknown>; };\n```"
    )


def test_listing_sorted_headings_and_namespace_sections_once():
    tools_ = [
        tool(
            "beta",
            ns="mcp__sample__",
            ns_desc="Shared namespace guidance.",
            output_schema=mcp_result({"type": "object", "properties": {}, "additionalProperties": False}),
        ),
        tool("hidden-dynamic-tool"),
        tool("alpha", ns="mcp__sample__", ns_desc="Shared namespace guidance."),
        tool("quiet", ns="zzz"),
    ]
    text = build_exec_description(tools_, code_mode_only=True)
    assert text.count("## mcp__sample__\nShared namespace guidance.") == 1
    assert text.count("Shared MCP Types:\n```ts\ntype Role") == 1
    assert "## zzz" not in text
    headings = (
        "### `hidden_dynamic_tool` (`hidden-dynamic-tool`)",
        "## mcp__sample__",
        "### `mcp__sample__alpha`\nd\n\nexec tool declaration",
        "### `mcp__sample__beta`",
        "### `zzz__quiet`",
    )
    order = [text.index(h) for h in headings]
    assert order == sorted(order)
    assert "mcp__sample__beta(args: unknown): Promise<CallToolResult<{}>>;" in text


def test_code_mode_only_without_tools_is_template():
    assert build_exec_description([], code_mode_only=True) == exec_description_template() + TAIL


# -- specs ------------------------------------------------------------------------------------------
def test_exec_spec_is_freeform_grammar():
    spec = exec_spec("D")
    assert list(spec) == ["type", "name", "description", "format"]
    assert spec["format"] == {"type": "grammar", "syntax": "lark", "definition": EXEC_GRAMMAR}
    assert EXEC_GRAMMAR.startswith("\nstart: pragma_source | plain_source\n")
    assert "PRAGMA_LINE: /[ \\t]*\\/\\/ @exec:[^\\r\\n]*/\n" in EXEC_GRAMMAR


def test_wait_spec():
    spec = wait_spec()
    assert list(spec) == ["type", "name", "description", "strict", "parameters"]
    assert spec["strict"] is False
    assert spec["description"].startswith(
        "Waits on a yielded `exec` cell and returns new output or completion.\n- Use `wait` only after `exec` "
        "returns `Script running with cell ID ...`."
    )
    assert spec["description"] == wait_description()
    params = spec["parameters"]
    assert list(params["properties"]) == ["cell_id", "max_tokens", "terminate", "yield_time_ms"]
    assert params["required"] == ["cell_id"] and params["additionalProperties"] is False


# -- pragma ----------------------------------------------------------------------------
def test_pragma_parsing():
    assert parse_exec_source("text('hi')").code == "text('hi')"
    parsed = parse_exec_source('// @exec: {"yield_time_ms": 10}\ntext(1)')
    assert (parsed.code, parsed.yield_time_ms, parsed.max_output_tokens) == ("text(1)", 10, None)
    parsed = parse_exec_source('  // @exec: {"max_output_tokens": 0}\nx')
    assert parsed.max_output_tokens == 0


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", EMPTY_SOURCE_ERROR),
        ("  \n\t", EMPTY_SOURCE_ERROR),
        ('// @exec: {"yield_time_ms": 1}', "exec pragma must be followed by JavaScript source on subsequent lines"),
        (
            '// @exec: {"yield_time_ms": 1}\n   ',
            "exec pragma must be followed by JavaScript source on subsequent lines",
        ),
        (
            "// @exec:\nx",
            "exec pragma must be a JSON object with supported fields `yield_time_ms` and `max_output_tokens`",
        ),
        (
            "// @exec: [1]\nx",
            "exec pragma must be a JSON object with supported fields `yield_time_ms` and `max_output_tokens`",
        ),
        (
            '// @exec: {"timeout": 1}\nx',
            "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `timeout`",
        ),
        (
            '// @exec: {"yield_time_ms": 9007199254740992}\nx',
            "exec pragma field `yield_time_ms` must be a non-negative safe integer",
        ),
        (
            '// @exec: {"max_output_tokens": 9007199254740992}\nx',
            "exec pragma field `max_output_tokens` must be a non-negative safe integer",
        ),
    ],
)
def test_pragma_errors(source, message):
    with pytest.raises(PragmaError) as err:
        parse_exec_source(source)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "source",
    [
        "// @exec: {bad\nx",
        '// @exec: {"yield_time_ms": -1}\nx',
        '// @exec: {"yield_time_ms": 1.5}\nx',
        '// @exec: {"yield_time_ms": "1"}\nx',
    ],
)
def test_pragma_errors_with_detail(source):
    with pytest.raises(PragmaError) as err:
        parse_exec_source(source)
    assert str(err.value).startswith(
        (
            "exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`: ",
            "exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative safe integers: ",
        )
    )


# -- where Codex 0.169 differs from the older upstream cases above (the binary wins; each is
# -- also a tests/conformance `schema_*` scenario played on the pinned binary) -------------------
def test_union_inside_intersection_gets_parentheses():
    schema = {
        "allOf": [{"$ref": "#/$defs/U"}, {"type": "object", "properties": {"value": {"type": "string"}}}],
        "$defs": {"U": {"oneOf": [{"type": "string"}, {"type": "number"}]}},
    }
    assert ts(schema) == "(string | number) & { value?: string; }"
    assert ts({"allOf": [{"type": ["string", "number"]}, {"const": 1}]}) == "(string | number) & 1"
    assert ts({"anyOf": [{"allOf": [{"type": "string"}, {"const": "a"}]}, {"type": "null"}]}) == 'string & "a" | null'


def test_percent_encoded_ref_fragment_is_decoded():
    assert ts({"$ref": "#/$defs/Foo%20Bar", "$defs": {"Foo Bar": {"type": "string"}}}) == "string"
    assert ts({"$ref": "#/$defs/A%7E1B", "$defs": {"A/B": {"type": "boolean"}}}) == "boolean"
    assert ts({"$ref": "#/$defs/Foo%2", "$defs": {"Foo%2": {"type": "string"}}}) == "unknown"  # a bad escape


def test_dangling_refs_do_not_use_up_expansions():
    props = {f"m{i:02}": {"$ref": f"#/$defs/Missing{i}"} for i in range(32)} | {"z": {"$ref": "#/$defs/Ok"}}
    rendered = ts({"type": "object", "properties": props, "$defs": {"Ok": {"type": "string"}}})
    assert rendered.endswith("z?: string; }") and rendered.count("unknown") == 32


def test_refs_under_nested_schema_resource_are_not_resolved():
    schema = {
        "$defs": {"Choice": {"type": "string"}},
        "type": "object",
        "properties": {
            "nested": {"$id": "urn:nested", "type": "object", "properties": {"value": {"$ref": "#/$defs/Choice"}}}
        },
    }
    assert ts(schema) == "{ nested?: { value?: unknown; }; }"


def test_render_work_budget_under_the_size_cap():
    item = {"type": "object", "properties": {"value": {"type": "string", "description": "x" * 8000}}}
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"$ref": "#/$defs/Item"} for i in range(32)},
        "$defs": {"Item": item},
    }
    assert ts(schema) == "unknown"
    assert ts({"type": "object", "properties": {"c": {"const": "c" * 15000}}}) == "unknown"  # 6 x 15,000 > 64,000
    assert ts({"type": "object", "properties": {"c": {"const": "c" * 4000}}}) == '{ c?: "' + "c" * 4000 + '"; }'
    few = {
        "type": "object",
        "properties": {f"p{i}": {"$ref": "#/$defs/Item"} for i in range(2)},
        "$defs": {"Item": {"type": "object", "properties": {"value": {"type": "string", "description": "x" * 400}}}},
    }
    assert ts(few).count("// " + "x" * 400) == 2


def test_description_lines_trimmed_as_rust_trims():
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": " one \r\n\n two \x1f "}}}
    assert ts(schema) == "{\n  // one\n  // two \x1f\n  a?: string;\n}"
