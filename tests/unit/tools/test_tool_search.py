"""tool_search: spec, arguments, ranking (checked against bm25s), namespace merge, load-for-next-step, cache."""

from __future__ import annotations

import json

import pytest

import codex_nb as cx
from codex_nb.tools.names import ToolName
from codex_nb.tools.handlers.tool_search import TOOL_SEARCH_DESCRIPTION, ToolSearchTool, parse_tool_search_arguments
from codex_nb.tools.search.index import SearchIndex
from codex_nb.tools.search.tokenize import tokenize
from helpers.paths import CODEX_0169_TOOLS

FIXTURE = json.loads(CODEX_0169_TOOLS.read_text())


def search_call(query, limit=None, call_id="search-1"):
    arguments = {"query": query} if limit is None else {"query": query, "limit": limit}
    return {"type": "tool_search_call", "call_id": call_id, "execution": "client", "arguments": arguments}


def deferred_session():
    session = cx.Session(cx.Config())

    def create_event(title: str, when: str) -> str:
        """Create a calendar event with a title at a time."""
        return f"created {title} at {when}"

    def list_files(folder: str) -> str:
        """List the files in a folder."""
        return folder

    def send_email(to: str, body: str) -> str:
        """Send an email message to someone."""
        return to

    for fn in (create_event, list_files, send_email):
        session.registry.register(fn, exposure=cx.tools.ToolExposure.Deferred)
    return session


def test_spec_is_codex_0169_byte_for_byte():
    codex = next(t for t in FIXTURE["tools"] if t["type"] == "tool_search")
    assert ToolSearchTool().spec() == codex
    assert codex["description"] == TOOL_SEARCH_DESCRIPTION


def test_declared_only_with_a_deferred_tool():
    session = cx.Session(cx.Config())
    assert "tool_search" not in session.planner.plan().tool_names
    session.registry.register(lambda: "x", name="hidden_helper", exposure=cx.tools.ToolExposure.Deferred)
    plan = session.planner.plan()
    assert plan.tool_names[-1] == "tool_search"
    assert "hidden_helper" not in plan.tool_names  # deferred: not shown upfront


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"query": "x", "limit": 0}', "limit must be greater than zero"),
        ('{"query": "   "}', "query must not be empty"),
        ('{"limit": 2}', "failed to parse tool_search arguments: missing field `query`"),
        ("not json", "failed to parse tool_search arguments"),
    ],
)
def test_bad_arguments(text, error):
    with pytest.raises(ValueError, match=error):
        parse_tool_search_arguments(text)


def test_limit_defaults_to_8():
    assert parse_tool_search_arguments('{"query": "a"}') == ("a", 8)


async def test_turn_writes_tool_search_output_and_next_step_calls_the_tool():
    session = deferred_session()
    seen = {}

    def after_search(request):
        seen["output"] = next(i for i in request.items if i["type"] == "tool_search_output")
        return [cx.function_call("create_event", {"title": "standup", "when": "9:00"}, call_id="c1")]

    model = cx.ScriptedModel([[search_call("calendar event", 1)], after_search, [cx.assistant_message("ok")]])
    result = await session.run_turn("plan my day", model=model)
    assert result.status == "completed"
    output = seen["output"]
    assert [k for k in output] == ["type", "call_id", "status", "execution", "tools"]
    assert [t["name"] for t in output["tools"]] == ["create_event"]
    tool = output["tools"][0]
    assert list(tool) == ["type", "name", "description", "strict", "defer_loading", "parameters"]
    assert tool["defer_loading"] is True
    assert result.outputs()["c1"] == "created standup at 9:00"


async def test_failures_answer_the_empty_output():
    session = deferred_session()
    model = cx.ScriptedModel(
        [
            [search_call("x", 0, "s0"), search_call(" ", None, "s1"), search_call("zzzz", 3, "s2")],
            [cx.assistant_message("ok")],
        ]
    )
    result = await session.run_turn("go", model=model)
    outputs = [i for i in result.items if i["type"] == "tool_search_output"]
    assert outputs == [
        {"type": "tool_search_output", "call_id": c, "status": "completed", "execution": "client", "tools": []}
        for c in ("s0", "s1", "s2")
    ]


def test_namespaces_merge_in_order_of_first_appearance():
    class NsTool(cx.tools.Tool):
        def __init__(self, name, ns, description):
            super().__init__(name, namespace=ns, exposure=cx.tools.ToolExposure.Deferred)
            self.description = description

        def spec(self):
            return {
                "type": "function",
                "name": self.name,
                "description": self.description,
                "strict": False,
                "parameters": {"type": "object", "properties": {}},
                "output_schema": {"type": "object"},
            }

        async def handle(self, invocation):
            return cx.tools.ToolOutput(body="ok")

    session = cx.Session(cx.Config())
    session.registry.replace_source(
        "cal",
        [
            NsTool("create_event", "mcp__cal", "create calendar event"),
            NsTool("delete_event", "mcp__cal", "delete calendar event event"),
        ],
    )
    session.registry.replace_source("mail", [NsTool("draft", "mcp__mail", "draft an event invitation")])
    plan = session.planner.plan()
    search = plan.router.lookup(ToolName.of("tool_search")).tool
    tools = search.search("event", 8)
    assert [t["name"] for t in tools] == ["mcp__cal", "mcp__mail"]
    assert tools[0]["description"] == "Tools in the mcp__cal namespace."
    assert sorted(t["name"] for t in tools[0]["tools"]) == ["create_event", "delete_event"]
    assert all("output_schema" not in t and t["defer_loading"] is True for t in tools[0]["tools"])


def test_tokenizer_follows_the_bm25_crate():
    assert tokenize("i me my myself we our ours ourselves you you're you've you'll you'd") == []
    assert tokenize("SPACE station") == ["space", "station"]
    assert tokenize("42 1337 3.14") == ["42", "1337", "3.14"]
    assert tokenize("mcp__notes__save_note café Running") == ["mcp__notes__save_not", "cafe", "run"]


def test_scores_rank_like_bm25s_lucene():
    """Same tokens, same corpus: our ranking equals bm25s (method="lucene": the same idf, tf up to a constant)."""
    import bm25s
    import numpy as np

    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(60)]
    texts = [" ".join(rng.choice(vocab, size=int(rng.integers(3, 25)))) for _ in range(300)]
    index = SearchIndex()
    for start in range(0, 300, 50):  # six sources
        index.replace(index.build_shard(f"s{start}", 0, list(range(start, start + 50)), texts[start : start + 50]))
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    reference.index([tokenize(t) for t in texts], show_progress=False)
    for query in ("w1 w2", "w3", "w10 w10 w11 w59"):
        ours = index.search(query, 300)
        scores = reference.get_scores(tokenize(query))
        expected = [i for i in np.argsort(-scores, kind="stable") if scores[i] > 0]
        assert [round(float(scores[i]), 4) for i in ours] == [round(float(scores[i]), 4) for i in expected]
        assert set(ours) == set(expected)


def test_index_is_rebuilt_only_for_the_changed_source():
    session = cx.Session(cx.Config())
    for source in ("a", "b"):
        session.registry.replace_source(source, [])
    session.registry.register(lambda: "1", name="alpha_tool", source="a", exposure=cx.tools.ToolExposure.Deferred)
    session.registry.register(lambda: "2", name="beta_tool", source="b", exposure=cx.tools.ToolExposure.Deferred)
    search = session.planner.plan().router.lookup(ToolName.of("tool_search")).tool
    search.search("alpha")
    assert sorted(search.index.rebuilt_sources) == ["a", "b"]
    session.registry.register(lambda: "3", name="gamma_tool", source="b", exposure=cx.tools.ToolExposure.Deferred)
    search = session.planner.plan().router.lookup(ToolName.of("tool_search")).tool
    assert [t["name"] for t in search.search("gamma")] == ["gamma_tool"]
    assert search.index.rebuilt_sources == ["b"]


async def test_deferred_namespaces_are_announced_like_codex():
    """Codex 0.169 tells the model the deferred namespaces in a <tools> developer message, then only additions."""

    class NsTool(cx.tools.Tool):
        def __init__(self, name, ns, description=""):
            super().__init__(
                name, namespace=ns, exposure=cx.tools.ToolExposure.Deferred, namespace_description=description
            )

        def spec(self):
            return {
                "type": "function",
                "name": self.name,
                "description": "",
                "strict": False,
                "parameters": {"type": "object", "properties": {}},
            }

        async def handle(self, invocation):
            return cx.tools.ToolOutput(body="ok")

    session = cx.Session(cx.Config())
    session.registry.replace_source("mcp:notes", [NsTool("save_note", "mcp__notes", "A tiny note book for tests.")])

    def add_time(request):
        session.registry.replace_source("mcp:time", [NsTool("get_current_time", "mcp__time")])
        return [cx.function_call("update_plan", {"plan": []}, call_id="p")]

    model = cx.ScriptedModel([add_time, [cx.assistant_message("ok")]])
    await session.run_turn("go", model=model)
    texts = [i["content"][0]["text"] for i in session.history if i.get("role") == "developer"]
    codex = FIXTURE["deferred_namespaces_context"]  # ['...multi_agent_v1...', '...Added...mcp__notes...mcp__time']
    assert texts[0] == "<tools>\nDeferred tool namespaces:\n- mcp__notes: A tiny note book for tests.\n</tools>"
    assert texts[1] == "<tools>\nAdded deferred tool namespaces:\n- mcp__time\n</tools>"
    assert codex[1].endswith("- mcp__time\n</tools>") and codex[0].startswith("<tools>\nDeferred tool namespaces:\n")


async def test_the_index_build_leaves_the_event_loop_free():
    """The first search of a plan builds the index in a worker thread: the loop runs meanwhile."""
    import asyncio
    import threading

    loop_ran = threading.Event()
    seen_threads = []

    class WaitingTool(cx.tools.Tool):
        def __init__(self) -> None:
            super().__init__("wait_tool", exposure=cx.tools.ToolExposure.Deferred)

        def spec(self):
            return {"type": "function", "name": "wait_tool", "description": "waits", "parameters": {"type": "object"}}

        def search_document(self) -> str:
            seen_threads.append(threading.current_thread())
            # Built on the loop's own thread, the loop could not run the callback below: no deadlock,
            # the wait just times out and the assertion names the problem.
            assert loop_ran.wait(timeout=10), "the index was built on the event loop's thread"
            return "wait tool"

        async def handle(self, invocation):
            return cx.tools.ToolOutput(body="ok")

    session = cx.Session(cx.Config())
    session.registry.register(WaitingTool())
    asyncio.get_running_loop().call_later(0.01, loop_ran.set)
    model = cx.ScriptedModel([[search_call("wait")], [cx.assistant_message("ok")]])
    result = await session.run_turn("go", model=model)
    output = next(i for i in result.items if i["type"] == "tool_search_output")
    assert [t["name"] for t in output["tools"]] == ["wait_tool"]
    assert seen_threads and threading.main_thread() not in seen_threads


@pytest.mark.slow
@pytest.mark.requires_codex
def test_the_fixture_specs_are_what_the_pinned_binary_sends(tmp_path):
    """The 0.169 fixture's tool specs still hold for the pin: ``codex exec`` against a local server."""
    from codex_nb.testing import ResponsesServer
    from helpers.codex_exec import codex_exec

    with ResponsesServer([[cx.assistant_message("done")]], allow_leftover=True) as server:
        home = server.write_codex_home(tmp_path / "home", model="gpt-5.5", features={"token_budget": True})
        done = codex_exec(home, cwd=tmp_path)
        assert server.requests, (done.stdout + done.stderr)[-2000:]
        sent = {(t.get("name") or t["type"]): t for t in server.requests[0]["tools"]}
    for spec in FIXTURE["tools"]:
        assert sent[spec.get("name") or spec["type"]] == spec
