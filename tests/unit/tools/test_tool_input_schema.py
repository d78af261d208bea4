"""Codex 0.169's ingest of a tool input schema, and SchemaTool (a tool defined by raw JSON schema).

Expected values are what the pinned binary sent as ``parameters`` (tests/conformance
``schema_ingest_*`` scenarios play the same schemas on it)."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.errors import ToolDefinitionError
from codex_nb.tools.input_schema import parse_tool_input_schema as ingest
from codex_nb.tools.schema_tool import SchemaTool

S = {"type": "string"}


def obj(**props):
    return {"type": "object", "properties": props}


def test_id_and_unknown_keywords_dropped_in_codex_key_order():
    got = ingest(
        {
            "$id": "urn:root",
            "type": "object",
            "title": "T",
            "properties": {
                "a": {"$id": "urn:a", "type": "string", "format": "uri", "default": "x", "minItems": 2},
                "b": {"type": "array", "items": S, "minItems": 1, "maxItems": 3},
            },
        }
    )
    assert got == obj(a={"type": "string", "minItems": 2}, b={"type": "array", "items": S, "minItems": 1})
    assert list(got["properties"]["b"]) == ["type", "items", "minItems"]


def test_const_becomes_string_enum_and_refs_kept():
    got = ingest(obj(c={"const": 3}, d={"$ref": "#/$defs/D"}) | {"$defs": {"D": S, "Unused": S}})
    assert got == {
        "type": "object",
        "properties": {"c": {"type": "string", "enum": [3]}, "d": {"$ref": "#/$defs/D"}},
        "$defs": {"D": S},
    }


def test_types_inferred_or_schema_emptied():
    got = ingest(
        obj(
            a={"description": "only"},
            b=True,
            e={"minimum": 1},
            f={"format": "date"},
            h={"type": ["string", "null", "bogus"]},
            i={"type": "array"},
            t={"prefixItems": [S]},
            k={"additionalProperties": {"const": 3}},
        )
    )
    assert got["properties"] == {
        "a": {},
        "b": S,
        "e": {"type": "number"},
        "f": S,
        "h": {"type": ["string", "null"]},
        "i": {"type": "array", "items": S},
        "t": {"type": "array", "items": S},
        "k": {"type": "object", "properties": {}, "additionalProperties": {"type": "string", "enum": [3]}},
    }
    assert ingest({}) == {}
    assert ingest({"properties": {"x": S}}) == obj(x=S)


def test_descriptions_dropped_only_when_the_schema_is_over_5000_bytes():
    assert ingest(obj(p={"type": "string", "description": "y" * 4097}))["properties"]["p"]["description"] == "y" * 4097
    assert ingest(obj(p={"type": "string", "description": "y" * 4990})) == obj(p=S)
    seven = ingest(
        {
            "type": "object",
            "description": "top",
            "properties": {f"p{i}": {"type": "string", "description": "x" * 2000} for i in range(7)},
        }
    )
    assert seven == obj(**{f"p{i}": S for i in range(7)})


def test_then_definitions_then_deep_objects_go():
    big = {"type": "object", "properties": {f"k{i:03}": S for i in range(400)}}
    assert ingest(obj(p={"$ref": "#/$defs/Big"}, q=S) | {"$defs": {"Big": big}}) == obj(p={}, q=S)
    deep = ingest(obj(a=obj(b=obj(c=big))))
    assert deep == obj(a=obj(b=obj(c={})))


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "null"}, "singleton null"),
        ({"type": "object", "required": "a"}, "input schema.required must be a list"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "description": 5}}},
            "input schema.properties.a.description must be a string",
        ),
    ],
)
def test_bad_schema_says_which_keyword(schema, message):
    with pytest.raises(ToolDefinitionError, match=message):
        ingest(schema)


def test_input_not_changed():
    schema = obj(c={"const": "k"})
    ingest(schema)
    assert schema == obj(c={"const": "k"})


def test_schema_tool_spec_and_call():
    seen = []

    async def handler(args):
        seen.append(args)
        return {"ok": True}

    tool = SchemaTool(
        "probe", description="Probe.", input_schema={"$id": "x", "properties": {"a": {"const": 1}}}, handler=handler
    )
    assert tool.spec() == {
        "type": "function",
        "name": "probe",
        "description": "Probe.",
        "strict": False,
        "parameters": obj(a={"type": "string", "enum": [1]}),
    }
    session = cx.Session(cx.Config())
    session.registry.register(tool)
    result = asyncio.run(session.call_tool("probe", {"a": 1}))
    assert seen == [{"a": 1}] and '"ok":true' in str(result)
    with pytest.raises(ToolDefinitionError, match="SchemaTool 'bad'.*singleton null"):
        SchemaTool("bad", description="d", input_schema={"type": "null"}, handler=handler)


def test_mcp_root_gets_properties_first():
    from codex_nb.tools.input_schema import parse_mcp_input_schema as mcp

    assert mcp({}) == {"type": "object", "properties": {}}
    assert mcp({"properties": None, "required": []}) == {"type": "object", "properties": {}, "required": []}
    union = {"anyOf": [obj(a=S), obj(b={"type": "number"})]}
    assert mcp(union) == {"properties": {}, "anyOf": [obj(a=S), obj(b={"type": "number"})]}
    assert ingest(union) == union  # a dynamic tool's root is left alone
    with pytest.raises(ToolDefinitionError, match="must be a JSON object"):
        mcp(["not", "a", "schema"])


def test_hostile_nesting_refused_or_rendered_unknown():
    from codex_nb.code_mode.typescript import render_json_schema_to_typescript as ts

    deep = S
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    with pytest.raises(ToolDefinitionError, match="deeper than 128"):
        ingest(deep)
    chain = {"$defs": {f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}]} for i in range(31)}}
    inner = S
    for _ in range(60):
        inner = {"anyOf": [inner]}
    chain["$defs"]["D31"] = inner
    chain["$ref"] = "#/$defs/D0"
    assert ts(chain) in ("string", "unknown")  # never a RecursionError
    very = S
    for _ in range(3000):
        very = {"anyOf": [very]}
    assert ts(very) == "unknown"
