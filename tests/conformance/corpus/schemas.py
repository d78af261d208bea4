"""Tool input schemas as the binary ingests and renders them: one tool per scenario.

Each schema is played through both paths, as a dynamic tool (app-server ``dynamicTools``;
codex_nb's ``SchemaTool``) and as the one tool of an MCP server, bare and nested under a
required property ``v`` (its definition tables moved to the root so its refs still
resolve). The tool's spec holds both the ``parameters`` Codex sends and, with Code Mode
on, its TypeScript declaration."""

from __future__ import annotations

from typing import Any

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE

CM = UPDATE_PLAN_ON + "\n[features]\ncode_mode = true\n"
# The binary shows gpt-5.1-codex its MCP tools directly (no tool_search for that model); codex_nb
# defers them unless search_tool is off. Deferral is not under test here.
CM_MCP = CM + "search_tool = false\n"
S = {"type": "string"}
TABLES = ("$defs", "definitions")


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


LONG_DEF = {"type": "object", "properties": {"a": {"type": "string", "description": "d" * 400}}}
SCHEMAS: dict[str, Any] = {
    # operator precedence
    "union_in_intersection": {
        "allOf": [{"$ref": "#/$defs/U"}, _obj(value=S)],
        "$defs": {"U": {"oneOf": [S, {"type": "number"}]}},
    },
    "anyof_in_intersection": {"allOf": [{"anyOf": [S, {"type": "null"}]}, {"type": "string", "enum": ["a", "b"]}]},
    "type_list_in_intersection": {"allOf": [{"type": ["string", "number"]}, _obj(k=S)]},
    "intersection_in_union": {"anyOf": [{"allOf": [S, {"const": "a"}]}, {"type": "null"}]},
    "ref_sibling_union": {"$ref": "#/$defs/U", "anyOf": [S, {"type": "null"}], "$defs": {"U": {"type": "number"}}},
    # refs
    "percent_ref": {
        "type": "object",
        "properties": {"d": {"$ref": "#/$defs/Foo%20Bar"}},
        "required": ["d"],
        "$defs": {"Foo Bar": S},
    },
    "percent_ref_bad_escape": _obj(d={"$ref": "#/$defs/Foo%2"}) | {"$defs": {"Foo%2": S}},
    "percent_ref_tilde": _obj(d={"$ref": "#/$defs/A%7E1B"}) | {"$defs": {"A/B": {"type": "boolean"}}},
    "dangling_refs_before_valid": {
        "type": "object",
        "properties": {**{f"m{i:02}": {"$ref": f"#/$defs/Missing{i}"} for i in range(32)}, "z": {"$ref": "#/$defs/Ok"}},
        "$defs": {"Ok": S},
    },
    "refs_over_32": {
        "type": "object",
        "properties": {f"p{i:02}": {"$ref": f"#/$defs/T{i}"} for i in range(34)},
        "$defs": {f"T{i}": S for i in range(34)},
    },
    "recursive_ref": {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": _obj(next={"$ref": "#/$defs/Node"})},
    },
    "unreachable_defs_pruned": _obj(a={"$ref": "#/$defs/Used"})
    | {"$defs": {"Used": {"$ref": "#/definitions/Inner"}, "Unused": S}, "definitions": {"Inner": S, "Gone": S}},
    # the render-work budget
    "work_budget_long_def_refs": {
        "type": "object",
        "properties": {f"p{i:02}": {"$ref": "#/$defs/Long"} for i in range(30)},
        "$defs": {"Long": LONG_DEF},
    },
    "work_budget_few_long_refs": {
        "type": "object",
        "properties": {f"p{i:02}": {"$ref": "#/$defs/Long"} for i in range(8)},
        "$defs": {"Long": LONG_DEF},
    },
    "work_budget_const_15000": _obj(c={"const": "c" * 15000}),
    "work_budget_const_4000": _obj(c={"const": "c" * 4000}),
    "work_budget_enum_many": _obj(e={"enum": [f"value-{i:04}" for i in range(1200)]}),
    # Codex's ingest
    "ingest_id_dropped": {
        "$id": "urn:example:root",
        "type": "object",
        "properties": {"a": {"$id": "urn:example:a", "type": "string"}},
    },
    "ingest_description_4097": _obj(p={"type": "string", "description": "y" * 4097}),
    "ingest_description_5000": _obj(p={"type": "string", "description": "y" * 5000}),
    "ingest_seven_descriptions_2000": {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": f"{i}" * 2000} for i in range(7)},
    },
    "ingest_defs_dropped_when_large": {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Big"}, "q": {"type": "string", "description": "z" * 300}},
        "$defs": {"Big": {"type": "object", "properties": {f"k{i:03}": S for i in range(400)}}},
    },
    "ingest_deep_collapsed_when_large": _obj(a=_obj(b=_obj(c=_obj(**{f"k{i:03}": S for i in range(400)})))),
    "ingest_const_to_enum": _obj(c={"const": "k"}, n={"const": 3}),
    "ingest_inferred_types": _obj(
        a={"description": "only"},
        b=True,
        e={"minimum": 1},
        f={"format": "date"},
        g={"enum": [1, 2]},
        h={"type": ["string", "null", "bogus"]},
        i={"type": "array"},
        j={"type": "bogus"},
        k={"additionalProperties": {"const": 3}},
        t={"prefixItems": [S]},
    ),
    "ingest_dropped_keywords": _obj(
        a={"type": "string", "title": "A", "default": "x", "pattern": "^a", "minLength": 1, "examples": ["a"]},
        b={"type": "array", "items": S, "minItems": 1, "maxItems": 3},
    ),
    "ingest_multiline_description": _obj(a={"type": "string", "description": " one \r\n\n two \x1f "}),
    "ingest_empty_schema": {},
    "ingest_root_without_type": {"properties": {"x": S}, "required": ["x"]},
}


def _nested(schema: Any) -> dict[str, Any]:
    inner = {k: v for k, v in schema.items() if k not in TABLES} if isinstance(schema, dict) else schema
    out: dict[str, Any] = {"type": "object", "properties": {"v": inner}, "required": ["v"]}
    if isinstance(schema, dict):
        out.update({k: schema[k] for k in TABLES if k in schema})
    return out


# Only an MCP server can send these: a root without `type` (or not an object at all).
MCP_ONLY: dict[str, Any] = {
    "mcp_root_without_type": {"properties": {"x": S}},
    "mcp_root_anyof_without_type": {"anyOf": [_obj(a=S), _obj(b={"type": "number"})]},
    "mcp_root_properties_null": {"type": "object", "properties": None, "required": []},
}
SKIP = ("tool_spec[default:exec]", "exec_nested_tool")
WHY = "only the probe tool's spec is under test here; exec is compared by the code_mode scenarios"


def _dynamic(name: str, schema: Any) -> Scenario:
    tool = {"type": "function", "name": "schema_probe", "description": "Probe tool.", "inputSchema": schema}
    return Scenario(name=name, config=CM, responses=[DONE], dynamic_tools=[tool], tags=("schemas",), skip=SKIP, why=WHY)


def _mcp(name: str, schema: Any) -> Scenario:
    tool = {"name": "probe", "description": "Probe tool.", "inputSchema": schema}
    return Scenario(
        name=name, config=CM_MCP, responses=[DONE], mcp_tools=[tool], tags=("schemas", "mcp"), skip=SKIP, why=WHY
    )


SCENARIOS = [
    s
    for name, schema in SCHEMAS.items()
    for s in (
        _dynamic(f"schema_{name}", schema),
        _dynamic(f"schema_{name}_nested", _nested(schema)),
        _mcp(f"schema_mcp_{name}", schema),
        _mcp(f"schema_mcp_{name}_nested", _nested(schema)),
    )
]
SCENARIOS += [_mcp(f"schema_{name}", schema) for name, schema in MCP_ONLY.items()]

# Listings the mcp SDK refuses as a whole but Codex reads tool by tool: a tool it cannot take
# is left out and the others stay.
GOOD = {"name": "good", "description": "Good.", "inputSchema": {"type": "object", "properties": {}}}
MCP_LISTINGS: dict[str, list[dict[str, Any]]] = {
    "mcp_list_array_root": [
        GOOD,
        {"name": "arr", "description": "Array root.", "inputSchema": {"type": "array", "items": S}},
    ],
    "mcp_list_output_schema_without_type": [
        GOOD,
        {
            "name": "out",
            "description": "Output.",
            "inputSchema": {},
            "outputSchema": {"properties": {"r": S}, "required": ["r"]},
        },
    ],
    "mcp_list_null_type_skipped": [GOOD, {"name": "nul", "description": "Null.", "inputSchema": {"type": "null"}}],
    "mcp_list_bad_required_skipped": [
        GOOD,
        {"name": "req", "description": "Required.", "inputSchema": {"type": "object", "required": "x"}},
    ],
}


def _listing(name: str, tools: list[dict[str, Any]]) -> Scenario:
    return Scenario(
        name=name, config=CM_MCP, responses=[DONE], mcp_tools=tools, tags=("schemas", "mcp"), skip=SKIP, why=WHY
    )


SCENARIOS += [_listing(f"schema_{name}", tools) for name, tools in MCP_LISTINGS.items()]
