"""A thread's history read page by page (``ThreadHistory``, ``thread/turns/list``): against the REAL
pinned Codex offline (pages equal the whole read, the cursor ends, Resume without turns), the
releases of the range asked which have the paged methods, and against a peer played by the test
(a huge page, a cursor that never ends, a page that is no page, a Codex that cannot page)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.app_server import HistoryError, ThreadHistory
from codex_nb.app_server.history_pages import WHOLE_TURNS, saved_turn
from codex_nb.app_server.versions import FEATURES, features_of

from helpers.app_server_helpers import real_codex
from helpers.app_server_peer import connected, send

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def _said(turns: list[Any]) -> list[tuple[str, str, str | None, list[tuple[str, str]]]]:
    """What a transcript shows of saved turns: id, status, prompt, each event's type and words."""
    return [
        (
            t.turn_id,
            t.status,
            t.prompt,
            [(e.msg.type, str(getattr(e.msg, "message", "") or getattr(e.msg, "item", ""))) for e in t.events],
        )
        for t in turns
    ]


@pytest.mark.requires_codex
async def test_a_thread_read_in_pages_equals_the_whole_read_and_the_cursor_ends(tmp_path: Path) -> None:
    script = [[cx.assistant_message(f"answer {n}")] for n in range(5)]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        for n in range(5):
            assert (await thread.run_turn(f"question {n}")).status == "completed"
        whole = await server.read_thread(thread.thread_id, include_turns=True)
        history = server.history(thread.thread_id, page_size=2)

        first = await history.newest()
        assert [t.prompt for t in first.turns] == ["question 3", "question 4"]  # the newest, oldest first
        assert first.more and history.paged
        assert (await history.older()).turns[-1].prompt == "question 2"
        every = await history.read_all()

        assert history.pages == 3 and not history.more and history.note == ""
        assert _said(every) == _said([saved_turn(thread.thread_id, t) for t in whole["thread"]["turns"]])
        assert [t.prompt for t in every] == [f"question {n}" for n in range(5)]
        assert (await history.older()).turns == []  # the cursor ended: nothing more is asked
        assert history.pages == 3
        assert ("agent_message", "answer 4") in _said(every)[-1][3]
        # the bare requests: a metadata-only read says the thread is stored in pages
        assert (await server.read_thread(thread.thread_id))["thread"]["historyMode"] == "paginated"
        assert (await server.list_turns(thread.thread_id, limit=1))["data"][0]["id"] == every[-1].turn_id
        items = await server.list_items(thread.thread_id, limit=2)
        assert [e["item"]["type"] for e in items["data"]] == ["agentMessage", "userMessage"] and items["nextCursor"]
        env = server._env

    # the saved thread resumed without its turns by another server, then paged: the newest come first
    async with cx.CodexAppServer(codex_home=tmp_path / "home", env=env) as second:
        resumed = await second.resume_thread(thread.thread_id, excludeTurns=True)
        assert resumed.info["thread"]["turns"] == []
        page = await second.history(thread.thread_id, page_size=3).newest()
        assert [t.prompt for t in page.turns] == ["question 2", "question 3", "question 4"]


@pytest.mark.requires_codex
@pytest.mark.parametrize("release", ["pinned", "oldest"])
def test_every_release_of_the_range_has_the_paged_methods(tmp_path: Path, release: str) -> None:
    from codex_nb.testing import codex_binary

    if release == "pinned":
        binary = codex_binary()
    else:
        oldest = cx.app_server.supported_range()[0]
        binary = ROOT / ".codex-compat" / oldest / "node_modules" / ".bin" / "codex"
        if not binary.exists():
            pytest.skip(f"Codex {oldest} is not installed under .codex-compat (.ci/codex-compat-install)")
    subprocess.run(
        [str(binary), "app-server", "generate-json-schema", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    requests = json.loads((tmp_path / "ClientRequest.json").read_text())
    methods = {v["properties"]["method"]["enum"][0] for v in requests["oneOf"]}
    assert {"thread/turns/list", "thread/items/list", "thread/read"} <= methods
    turns = json.loads((tmp_path / "v2" / "ThreadTurnsListParams.json").read_text())["properties"]
    assert {"cursor", "limit", "sortDirection", "itemsView"} <= set(turns)
    for name in ("ThreadResumeParams", "ThreadForkParams"):
        assert "excludeTurns" in json.loads((tmp_path / "v2" / f"{name}.json").read_text())["properties"]


def test_the_paged_feature_is_on_for_every_release_of_the_range() -> None:
    oldest, newest = cx.app_server.supported_range()
    assert FEATURES["thread history pages"] == "thread/turns/list"
    assert features_of(oldest)["thread history pages"] and features_of(newest)["thread history pages"]


def _turn(n: int) -> dict[str, Any]:
    return {
        "id": f"t{n}",
        "status": "completed",
        "items": [
            {"type": "userMessage", "id": f"u{n}", "content": [{"type": "text", "text": f"question {n}"}]},
            {"type": "agentMessage", "id": f"a{n}", "text": f"answer {n}"},
        ],
    }


async def _peer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answer: Any) -> list[dict[str, Any]]:
    """Play the app-server: answer each request with ``answer(request)`` (a result, or an error
    when it returns ``("error", code, message)``), until the connection closes; the requests seen."""
    seen = []
    while True:
        raw = await reader.readline()
        if not raw:
            return seen
        request = json.loads(raw)
        seen.append(request)
        result = answer(request)
        if isinstance(result, tuple):
            send(writer, {"id": request["id"], "error": {"code": result[1], "message": result[2]}})
        else:
            send(writer, {"id": request["id"], "result": result})
        await writer.drain()


async def _with_peer(tmp_path: Path, answer: Any, run: Any) -> tuple[Any, list[dict[str, Any]]]:
    server = cx.CodexAppServer(codex_home=tmp_path)
    async with connected(server) as (reader, writer, _connection):
        peer = asyncio.ensure_future(_peer(reader, writer, answer))
        try:
            out = await run(server)
        finally:
            writer.close()
        seen = await peer
    return out, seen


async def test_a_huge_page_is_cut_to_the_page_asked_for(tmp_path: Path) -> None:
    def answer(request: dict[str, Any]) -> Any:
        return {"data": [_turn(n) for n in range(250, 0, -1)], "nextCursor": "c1"}  # within a socket's line

    async def run(server: cx.CodexAppServer) -> Any:
        history = server.history("th", page_size=20)
        return history, await history.newest()

    (history, page), seen = await _with_peer(tmp_path, answer, run)
    assert [t.prompt for t in page.turns][-2:] == ["question 249", "question 250"] and len(page.turns) == 20
    assert page.note == "Codex sent 250 turns for a page of 20; the newest 20 were kept"
    assert seen[0]["params"] == {"threadId": "th", "limit": 20, "sortDirection": "desc", "itemsView": "full"}
    assert history.more


async def test_a_cursor_that_never_ends_stops_at_the_bound_said(tmp_path: Path) -> None:
    counter = iter(range(10**6))

    def fresh(request: dict[str, Any]) -> Any:  # always new turns (as many as asked) and a new cursor
        n = next(counter)
        return {"data": [_turn(n * 1000 + k) for k in range(request["params"]["limit"])], "nextCursor": f"c{n}"}

    async def bounded(server: cx.CodexAppServer) -> Any:
        history = server.history("th", page_size=10, max_turns=35)
        return history, await history.read_all()

    (history, turns), seen = await _with_peer(tmp_path, fresh, bounded)
    assert len(turns) == 35 and len(seen) == 4 and seen[-1]["params"]["limit"] == 5
    assert history.note == "the newest 35 turns are loaded; older ones are not (max_turns)" and not history.more

    def same_cursor(request: dict[str, Any]) -> Any:
        return {"data": [_turn(next(counter))], "nextCursor": "again"}

    async def unbounded(server: cx.CodexAppServer) -> Any:
        history = server.history("th")
        return history, await history.read_all()

    (history, turns), seen = await _with_peer(tmp_path, same_cursor, unbounded)
    assert len(seen) == 2 and history.note == "Codex gave a cursor it had given before; paging stopped there"

    def same_turns(request: dict[str, Any]) -> Any:
        return {"data": [_turn(1)], "nextCursor": f"c{next(counter)}"}

    (history, turns), seen = await _with_peer(tmp_path, same_turns, unbounded)
    assert len(turns) == 1 and history.note == "a page held no turn not already loaded; paging stopped there"

    async def timed(server: cx.CodexAppServer) -> Any:
        history = server.history("th", page_size=1, max_turns=10**6, budget=0.3)
        return history, await history.read_all()

    (history, turns), seen = await _with_peer(tmp_path, fresh, timed)
    assert history.note.startswith("stopped after 0.3 s of paging with ") and len(turns) == len(seen)


async def test_a_page_that_is_no_page_is_a_one_line_error(tmp_path: Path) -> None:
    async def run(server: cx.CodexAppServer) -> Any:
        with pytest.raises(HistoryError) as caught:
            await server.history("th").newest()
        return str(caught.value)

    message, _seen = await _with_peer(tmp_path, lambda request: {"data": "lots"}, run)
    assert message == (
        "thread/turns/list answered something that is not a page of turns (dict without a 'data' list); "
        "the history cannot be read from this server"
    )


async def test_a_codex_that_cannot_page_gets_the_whole_read_bounded(tmp_path: Path) -> None:
    def answer(request: dict[str, Any]) -> Any:
        if request["method"] == "thread/turns/list":
            return ("error", -32601, "unknown variant `thread/turns/list`")
        return {"thread": {"id": "th", "turns": [_turn(n) for n in range(WHOLE_TURNS + 50)]}}

    async def run(server: cx.CodexAppServer) -> Any:
        history = ThreadHistory(server, "th")
        page = await history.newest()
        return history, page, server.features["thread history pages"]

    (history, page, feature), seen = await _with_peer(tmp_path, answer, run)
    assert [r["method"] for r in seen] == ["thread/turns/list", "thread/read"]
    assert seen[1]["params"] == {"threadId": "th", "includeTurns": True}
    assert not history.paged and not page.more and not feature
    assert len(page.turns) == WHOLE_TURNS and page.turns[-1].prompt == f"question {WHOLE_TURNS + 49}"
    assert page.note == (
        f"this Codex cannot page its history, so it was read whole; 50 older turn(s) are not shown "
        f"(the newest {WHOLE_TURNS} are)"
    )


def test_bad_bounds_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="page_size is a number of turns: an int >= 1, got 0"):
        ThreadHistory(None, "th", page_size=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget is seconds of paging"):
        ThreadHistory(None, "th", budget=-1)  # type: ignore[arg-type]
