"""The request cx.ResponsesModel sends vs what the real Codex 0.169 binary sends for the
same history, both recorded by the shared local Responses server.

Same config (provider, model, reasoning effort), same scripted model output (a reasoning
item with encrypted content, an assistant message, an update_plan call): the second
request of each carries that history back. Codex's own context (its instructions as a
developer message, environment context, tools we do not have) is left out of the
comparison; everything the runtime shares with Codex must match.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import codex_nb as cx
from helpers.codex_exec import codex_exec
from codex_nb.testing import ResponsesServer

REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "status": "completed",
    "encrypted_content": "gAAAA-opaque-blob",
    "summary": [{"type": "summary_text", "text": "Thinking about a plan"}],
}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Let me plan.", "annotations": [], "logprobs": []}],
}
CALL = {
    "type": "function_call",
    "id": "fc_1",
    "status": "completed",
    "name": "update_plan",
    "arguments": '{"plan":[{"step":"Read the code","status":"in_progress"}]}',
    "call_id": "c1",
}
SCRIPT = [[REASONING, MESSAGE, CALL], [cx.assistant_message("done")]]


def codex_requests(tmp_path: Path) -> list[dict]:
    with ResponsesServer(SCRIPT) as srv:
        home = srv.write_codex_home(
            tmp_path / "home", model_reasoning_effort="high", tools={"update_plan": {"enabled": True}}
        )
        proc = codex_exec(home, cwd=tmp_path, prompt="make a plan", json_events=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return srv.requests


async def our_requests(tmp_path: Path) -> tuple[list[dict], cx.Session]:
    async with ResponsesServer(SCRIPT) as srv:
        toml = (
            srv.write_codex_home(
                tmp_path / "ours", model_reasoning_effort="high", tools={"update_plan": {"enabled": True}}
            )
            / "config.toml"
        )
        config = cx.Config.from_toml(toml.read_text())
        session = cx.Session(config=config)
        result = await session.run_turn("make a plan", model=cx.ResponsesModel.from_config(config))
    assert result.status == "completed", result.error
    return srv.requests, session


def without_output_ids(items: list[dict]) -> list[dict]:
    # Codex gives each tool output it records an id of its own (fco_<uuid v7>); we send none.
    return [{k: v for k, v in i.items() if not (k == "id" and i["type"].endswith("_output"))} for i in items]


@pytest.mark.requires_codex
async def test_our_request_matches_what_codex_sends_for_the_same_history(tmp_path: Path) -> None:
    codex = codex_requests(tmp_path)
    ours, session = await our_requests(tmp_path)
    assert len(codex) == len(ours) == 2
    for theirs, mine in zip(codex, ours, strict=True):
        # the same keys in the same order; client_metadata (Codex installation/window ids) is Codex's own
        assert [k for k in theirs if k != "client_metadata"] == list(mine)
        for key in ("model", "stream", "tool_choice", "parallel_tool_calls", "reasoning", "store", "include"):
            assert mine[key] == theirs[key], key
        assert mine["prompt_cache_key"] == session.thread_id  # Codex: its thread id
        theirs_plan = next(t for t in theirs["tools"] if t.get("name") == "update_plan")
        mine_plan = next(t for t in mine["tools"] if t.get("name") == "update_plan")
        assert mine_plan == theirs_plan
    # the history the model sees after its first response: user text, then the model's
    # items exactly as Codex sends them back, then the call's output
    user_at = next(
        i
        for i, item in enumerate(codex[1]["input"])
        if item.get("role") == "user" and item["content"][0]["text"] == "make a plan"
    )
    codex_tail = without_output_ids(codex[1]["input"][user_at:])
    our_tail = ours[1]["input"]
    assert our_tail[0]["content"] == codex_tail[0]["content"]
    assert our_tail[1:] == codex_tail[1:]
    assert our_tail[1] == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": REASONING["summary"],
        "content": None,
        "encrypted_content": "gAAAA-opaque-blob",
    }
