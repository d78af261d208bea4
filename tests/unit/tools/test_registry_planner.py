"""Registry generations, one-snapshot planning, routing and namespaces."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.protocol.model import ModelRequest
from codex_nb.tools.names import ToolName
from codex_nb.tools.python_tool import PythonFunctionTool
from codex_nb.protocol.wire import dumps


def test_generation_counts_every_change(session: cx.Session) -> None:
    reg = session.registry
    start = reg.generation

    @session.tool
    def a(x: int) -> int:
        "A."
        return x

    assert reg.generation == start + 1
    session.registry.replace_source("mcp__srv", [])
    assert reg.generation == start + 2


def test_collision_across_sources_raises_and_names_both(session: cx.Session) -> None:
    def update_plan(x: int) -> int:
        return x

    with pytest.raises(
        cx.errors.ToolCollisionError,
        match=r"functions\.update_plan is already registered by source "
        r"'builtin'; source 'user'",
    ):
        session.registry.register(update_plan, source="user")


def test_same_source_replaces(session: cx.Session) -> None:
    def t(x: int) -> str:
        "first"
        return ""

    session.registry.register(t, source="lab")

    def t2(x: int) -> str:
        "second"
        return ""

    session.registry.register(t2, source="lab", name="t")
    assert session.registry.get("t").tool.spec()["description"] == "second"


def test_replace_source_is_atomic(session: cx.Session) -> None:
    def one(x: int) -> str:
        return ""

    def two(x: int) -> str:
        return ""

    session.registry.replace_source("srv", [PythonFunctionTool(one, namespace="mcp__srv")])
    before = session.registry.generation
    with pytest.raises(cx.errors.ToolCollisionError):  # update_plan belongs to "builtin"
        session.registry.replace_source("srv", [two, PythonFunctionTool(lambda: None, name="update_plan")])
    assert session.registry.generation == before  # nothing changed on failure
    assert "mcp__srv.one" in session.registry
    session.registry.replace_source("srv", [two])
    assert session.registry.generation == before + 1
    assert "mcp__srv.one" not in session.registry and "two" in session.registry


async def test_snapshot_isolation_across_mid_step_registry_change(session: cx.Session) -> None:
    """Specs and router of one step come from one snapshot; a change mid-step shows up next step."""
    seen: list[list[str]] = []

    def add_tool_while_sampling(request: ModelRequest):
        seen.append(request.tool_names)

        @session.tool
        async def late(x: int = 0) -> str:
            "Registered while the model was sampling."
            return "late ran"

        return [cx.function_call("late", {}, call_id="c1")]

    def second(request: ModelRequest):
        seen.append(request.tool_names)
        return [cx.function_call("late", {}, call_id="c2")]

    model = cx.ScriptedModel([add_tool_while_sampling, second, [cx.assistant_message("done")]], record_requests=True)
    result = await session.run_turn("go", model=model)
    outputs = result.outputs()
    assert outputs["c1"] == "unsupported call: late"  # the step's router never saw it
    assert outputs["c2"] == "late ran"
    assert "late" not in seen[0] and "late" in seen[1]
    assert model.requests[1].tool_generation == model.requests[0].tool_generation + 1


async def test_unknown_tools_get_paired_outputs(session: cx.Session) -> None:
    model = cx.ScriptedModel(
        [
            [
                cx.function_call("nonexistent", {}, call_id="f1"),
                cx.custom_tool_call("nope", "x", call_id="c1"),
                cx.function_call("t", {}, call_id="n1", namespace="mcp__server_one"),
            ],
            [cx.assistant_message("ok")],
        ],
        record_requests=True,
    )
    result = await session.run_turn("go", model=model)
    assert result.outputs() == {
        "f1": "unsupported call: nonexistent",
        "c1": "unsupported custom tool call: nope",
        "n1": "unsupported call: mcp__server_onet",
    }
    assert session.lifecycle_log == []  # no lifecycle for unknown tools


def test_namespaces_merge_sort_and_describe(session: cx.Session) -> None:
    for name in ("zeta", "alpha"):
        session.registry.register(lambda: "", name=name, namespace="clockish")
    session.registry.register(lambda: "", name="mid")
    specs = [
        s for s in session.tool_plan().specs if s["name"] in ("update_plan", "clockish", "mid")
    ]  # + other builtins
    assert [s["name"] for s in specs] == ["update_plan", "clockish", "mid"]
    assert specs[1]["description"] == "Tools in the clockish namespace."
    assert [t["name"] for t in specs[1]["tools"]] == ["alpha", "zeta"]
    no_ns = cx.Session(cx.Config(namespace_tools=False))
    no_ns.registry.register(lambda: "", name="x", namespace="clockish")
    assert "clockish" not in [s["name"] for s in no_ns.tool_plan().specs]


def test_exposure_controls_visibility_not_dispatch(session: cx.Session) -> None:
    session.registry.register(lambda: "hidden ran", name="secret", exposure=cx.tools.ToolExposure.Hidden)
    plan = session.tool_plan()
    assert "secret" not in plan.tool_names
    assert plan.exposure("secret") is cx.tools.ToolExposure.Hidden
    assert plan.exposure("update_plan") is cx.tools.ToolExposure.Direct
    assert plan.exposure("missing") is None


async def test_hidden_tool_still_dispatches(session: cx.Session) -> None:
    session.registry.register(lambda: "hidden ran", name="secret", exposure=cx.tools.ToolExposure.Hidden)
    assert (await session.call_tool("secret", {})).output == "hidden ran"


def test_plan_is_cached_per_generation(session: cx.Session) -> None:
    first = session.tool_plan()
    assert session.tool_plan() is first
    session.registry.register(lambda: "", name="n")
    assert session.tool_plan() is not first


def test_exposure_members_and_flags() -> None:
    assert [e.name for e in cx.tools.ToolExposure] == [
        "Direct",
        "DirectModelOnly",
        "Deferred",
        "DeferredModelOnly",
        "CodeModeOnly",
        "Hidden",
    ]
    assert cx.tools.ToolExposure.from_flags(direct=True, deferred=False, code=True) is cx.tools.ToolExposure.Direct
    assert cx.tools.ToolExposure.from_flags(direct=False, deferred=False, code=False) is cx.tools.ToolExposure.Hidden
    assert (
        cx.tools.ToolExposure.DirectModelOnly.is_direct
        and not cx.tools.ToolExposure.DirectModelOnly.available_in_code_mode
    )


def test_names() -> None:
    name = ToolName.of("tool_two_three", "mcp__server_one")
    assert name.display == "mcp__server_onetool_two_three"
    assert name.code_mode_identifier == "mcp__server_one__tool_two_three"
    assert ToolName.of("x", "") == ToolName.of("x", None) == ToolName("functions", "x")


async def test_outputs_recorded_in_call_order_with_parallel_tools(session: cx.Session) -> None:
    release = asyncio.Event()
    started: list[str] = []

    @session.tool(parallel=True)
    async def slow(tag: str) -> str:
        "Waits for the release."
        started.append(tag)
        if len(started) == 2:
            release.set()
        await release.wait()
        return tag

    @session.tool(parallel=True)
    async def fast(tag: str) -> str:
        "Returns at once."
        return tag

    model = cx.ScriptedModel(
        [
            [
                cx.function_call("slow", {"tag": "s1"}, call_id="a"),
                cx.function_call("fast", {"tag": "f"}, call_id="b"),
                cx.function_call("slow", {"tag": "s2"}, call_id="c"),
            ],
            [cx.assistant_message("done")],
        ],
        record_requests=True,
    )
    result = await session.run_turn("go", model=model)
    kinds = [(i["type"], i.get("call_id")) for i in result.items if "call" in i["type"]]
    assert kinds == [
        ("function_call", "a"),
        ("function_call", "b"),
        ("function_call", "c"),
        ("function_call_output", "a"),
        ("function_call_output", "b"),
        ("function_call_output", "c"),
    ]
    assert started == ["s1", "s2"]  # both slow calls ran concurrently under the shared gate


async def test_exclusive_tools_do_not_overlap(session: cx.Session) -> None:
    active: list[int] = []
    peak: list[int] = []

    @session.tool
    async def solo(n: int) -> str:
        "Exclusive."
        active.append(n)
        peak.append(len(active))
        await asyncio.sleep(0)
        active.remove(n)
        return str(n)

    model = cx.ScriptedModel(
        [[cx.function_call("solo", {"n": i}, call_id=f"c{i}") for i in range(4)], [cx.assistant_message("done")]],
        record_requests=True,
    )
    await session.run_turn("go", model=model)
    assert max(peak) == 1


def test_spec_json_is_compact_and_raw_unicode() -> None:
    assert dumps({"a": "é", "b": [1]}) == '{"a":"é","b":[1]}'
