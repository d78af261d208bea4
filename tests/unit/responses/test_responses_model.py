"""cx.ResponsesModel against the real local Responses server: config, request shape,
streaming into the runtime, token usage, and the failures Codex handles. No SDK mocks."""

from __future__ import annotations

import asyncio
import json
import logging
import traceback

import pytest

import codex_nb as cx
from codex_nb.protocol.model import ModelRequest
from codex_nb.protocol.model_stream import TokenUsage
from codex_nb.runtime.history import repair_history
from codex_nb.testing import CutStream, Events, Garbage, HttpError, RecordingSubscriber, ResponsesServer, Stall

from helpers.responses_streams import add_wait_here, held_call_events, text_events

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


SECRET = "sk-test-SECRET-0123456789"
PLAN = {"plan": [{"step": "Read the code", "status": "in_progress"}]}


def model_for(srv: ResponsesServer, **options) -> cx.ResponsesModel:
    options.setdefault("api_key", SECRET)
    return cx.ResponsesModel(model="local-model", base_url=srv.base_url, **options)


# ---------------------------------------------------------------- streaming into the runtime


async def test_text_streams_as_agent_message_deltas_then_one_agent_message(no_leaked_tasks) -> None:
    async with ResponsesServer([Events(text_events("Hel", "lo, ", "world"))]) as srv:
        session = cx.Session()
        model = model_for(srv)
        result = await session.run_turn("hi", model=model)
        await model.aclose()
    assert result.status == "completed", result.error
    wire = [e.msg.to_wire() for e in result.events]
    assert [w["type"] for w in wire] == [
        "turn_started",
        "user_message",
        "agent_message_delta",
        "agent_message_delta",
        "agent_message_delta",
        "agent_message",
        "token_count",
        "turn_complete",
    ]
    assert [w["delta"] for w in wire if w["type"] == "agent_message_delta"] == ["Hel", "lo, ", "world"]
    assert wire[5] == {"type": "agent_message", "message": "Hello, world"}
    usage = {
        "input_tokens": 7,
        "cached_input_tokens": 3,
        "output_tokens": 5,
        "reasoning_output_tokens": 2,
        "total_tokens": 12,
    }
    assert wire[6] == {
        "type": "token_count",
        "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": None},
        "rate_limits": None,
    }
    assert result.token_usage == result.last_token_usage == TokenUsage(**usage)
    assert session.last_token_usage == session.token_usage == TokenUsage(**usage)
    assert result.last_agent_message == "Hello, world"


async def test_reasoning_summaries_stream_and_the_item_comes_back_with_its_encrypted_content() -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "status": "completed",
        "encrypted_content": "gAAAA-opaque",
        "summary": [{"type": "summary_text", "text": "First"}, {"type": "summary_text", "text": "Second"}],
    }
    events = [
        {"type": "response.created", "response": {"id": "r1"}},
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 0, "delta": "Fir"},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 0, "delta": "st"},
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "summary_index": 1},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 1, "delta": "Second"},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": cx.function_call("update_plan", PLAN, call_id="c1"),
        },
        {"type": "response.completed", "response": {"id": "r1"}},
    ]
    async with ResponsesServer([Events(events), [cx.assistant_message("done")]]) as srv:
        session = cx.Session()
        result = await session.run_turn("plan it", model=model_for(srv))
    types = [e.msg.type for e in result.events]
    assert types[:7] == [
        "turn_started",
        "user_message",
        "agent_reasoning_delta",
        "agent_reasoning_delta",
        "agent_reasoning_section_break",
        "agent_reasoning_delta",
        "agent_reasoning",
    ]
    assert [e.msg.text for e in result.events if e.msg.type == "agent_reasoning"] == ["First", "Second"]
    # Codex re-sends the reasoning item with content null and without status, encrypted content kept
    assert srv.requests[1]["input"][1] == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": reasoning["summary"],
        "content": None,
        "encrypted_content": "gAAAA-opaque",
    }
    assert srv.requests[1]["input"][2] == cx.function_call("update_plan", PLAN, call_id="c1")
    assert srv.requests[1]["input"][3] == {"type": "function_call_output", "call_id": "c1", "output": "Plan updated"}


async def test_a_call_runs_while_the_response_is_still_streaming_and_interrupt_closes_the_stream(
    no_leaked_tasks,
) -> None:
    """The call starts when its item completes; the stream is still open (held by the server).
    Stop: the HTTP stream closes at once, the call gets its paired aborted output."""
    async with ResponsesServer([Events(held_call_events(), hold_after=2)]) as srv:
        session = cx.Session()
        started = add_wait_here(session)
        model = model_for(srv)
        handle = session.start_turn("go", model=model)
        await started.wait()
        assert srv.disconnects == 0  # the response is still streaming while the call runs
        assert handle.interrupt()
        result = await handle
        assert await asyncio.to_thread(srv.disconnected.wait, 5)
        await model.aclose()
    assert result.status == "interrupted"
    assert result.outputs()["w1"].startswith("aborted by user after ")
    assert repair_history(session.history) == session.history  # every call is paired


async def test_tool_calls_are_published_as_dynamic_tool_call_items() -> None:
    async with ResponsesServer(
        [[cx.function_call("update_plan", PLAN, call_id="c1")], [cx.assistant_message("ok")]]
    ) as srv:
        session = cx.Session()
        result = await session.run_turn("go", model=model_for(srv))
    started = [e.msg.item for e in result.events if e.msg.type == "item_started"]
    completed = [e.msg.item for e in result.events if e.msg.type == "item_completed"]
    assert started == [
        {
            "type": "dynamicToolCall",
            "id": "c1",
            "namespace": None,
            "tool": "update_plan",
            "arguments": PLAN,
            "status": "inProgress",
            "contentItems": None,
            "success": None,
            "durationMs": None,
        }
    ]
    assert completed[0]["status"] == "completed" and completed[0]["success"] is True
    assert completed[0]["contentItems"] == [{"type": "inputText", "text": "Plan updated"}]


# ---------------------------------------------------------------- the request Codex would send


async def test_request_body_has_codex_keys_in_codex_order() -> None:
    async with ResponsesServer([[cx.assistant_message("hi")]]) as srv:
        session = cx.Session()
        model = model_for(srv, reasoning_effort="high")
        await session.run_turn("hello", model=model)
    body = srv.requests[0]
    assert list(body) == [
        "model",
        "stream",
        "input",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "reasoning",
        "store",
        "include",
        "prompt_cache_key",
    ]
    assert body["stream"] is True and body["store"] is False and body["tool_choice"] == "auto"
    assert body["parallel_tool_calls"] is True
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == session.thread_id
    assert body["tools"] == session.tool_plan().specs
    assert body["input"] == [cx.user_message("hello")]
    assert srv.headers[0]["authorization"] == f"Bearer {SECRET}"


async def test_no_key_sends_no_authorization_header() -> None:
    async with ResponsesServer([[cx.assistant_message("hi")]]) as srv:
        await cx.Session().run_turn("hello", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    assert "authorization" not in srv.headers[0]


# ---------------------------------------------------------------- failures, as Codex handles them


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_failure_fails_at_once_naming_the_env_var(status: int, monkeypatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_KEY", SECRET)
    toml = 'model = "m"\nmodel_provider = "mine"\n[model_providers.mine]\nbase_url = "{url}"\nenv_key = "MY_PROVIDER_KEY"\n'
    body = {"error": {"message": f"Incorrect API key provided: {SECRET}", "type": "invalid_request_error"}}
    async with ResponsesServer([HttpError(status, body=body)]) as srv:
        url = srv.base_url
        model = cx.ResponsesModel.from_config(cx.Config.from_toml(toml.format(url=url)))
        session = cx.Session()
        log = RecordingSubscriber(session)
        result = await session.run_turn("hi", model=model)
    assert result.status == "failed"
    reason = {401: "Unauthorized", 403: "Forbidden"}[status]
    assert result.error == (
        f"unexpected status {status} {reason}: Incorrect API key provided: ***, url: "
        f"{url}/responses. To fix: set MY_PROVIDER_KEY to a valid API key for mine."
    )
    assert len(srv.requests) == 1
    assert log.of_type("error")[0].msg.message == result.error
    assert SECRET not in json.dumps(log.wire()) and SECRET not in repr(model)


async def test_429_waits_for_retry_after_then_succeeds() -> None:
    async with ResponsesServer([HttpError(429, headers={"Retry-After": "0.3"}), [cx.assistant_message("ok")]]) as srv:
        session = cx.Session()
        loop = asyncio.get_running_loop()
        began = loop.time()
        result = await session.run_turn("hi", model=model_for(srv))
        elapsed = loop.time() - began
    assert result.status == "completed"
    assert elapsed >= 0.3
    notes = [e.msg for e in result.events if e.msg.type == "stream_error"]
    assert [n.message for n in notes] == ["Reconnecting... 1/5"]
    assert notes[0].codex_error_info == "rateLimitExceeded"
    assert notes[0].additional_details.startswith("exceeded retry limit, last status: 429 Too Many Requests")


async def test_5xx_is_retried_per_request_then_per_stream_then_fails_with_the_last_error() -> None:
    script = [HttpError(503)] * 4
    async with ResponsesServer(script) as srv:
        session = cx.Session()
        log = RecordingSubscriber(session)
        result = await session.run_turn("hi", model=model_for(srv, request_max_retries=1, stream_max_retries=1))
    assert len(srv.requests) == 4  # (1 + 1 request retry) x (1 + 1 stream retry), as Codex counts
    assert result.status == "failed"
    assert result.error == "exceeded retry limit, last status: 503 Service Unavailable: scripted HTTP 503"
    assert log.types == ["turn_started", "user_message", "stream_error", "error", "turn_complete"]


@pytest.mark.parametrize(
    "fault",
    [CutStream(after_items=0), Stall(5), Garbage("data: {not json\n\n"), Garbage("this is not an event stream\n\n")],
    ids=["cut", "stall", "bad-json", "no-events"],
)
async def test_dropped_stalled_or_malformed_streams_are_retried(fault, no_leaked_tasks) -> None:
    async with ResponsesServer([fault, [cx.assistant_message("recovered")]]) as srv:
        session = cx.Session()
        model = model_for(srv, stream_idle_timeout_ms=300)
        result = await session.run_turn("hi", model=model)
        await model.aclose()
    assert result.status == "completed", result.error
    assert result.last_agent_message == "recovered"
    [note] = [e.msg for e in result.events if e.msg.type == "stream_error"]
    assert note.message == "Reconnecting... 1/5"
    assert note.additional_details.startswith("stream disconnected before completion: ")


async def test_stream_retries_exhausted_fail_the_turn_with_the_last_error() -> None:
    async with ResponsesServer([CutStream(after_items=0), Garbage("data: {oops\n\n")]) as srv:
        result = await cx.Session().run_turn("hi", model=model_for(srv, stream_max_retries=1))
    assert result.status == "failed"
    assert result.error.startswith("stream disconnected before completion: malformed event from the model provider")


@pytest.mark.parametrize(
    ("event", "message", "requests"),
    [
        (
            {
                "type": "response.failed",
                "response": {"id": "r", "error": {"code": "context_length_exceeded", "message": "too long"}},
            },
            "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before "
            "retrying.",
            1,
        ),
        (
            {
                "type": "response.failed",
                "response": {"id": "r", "error": {"code": "server_error", "message": "it broke"}},
            },
            "it broke",
            2,
        ),
        (
            {
                "type": "response.incomplete",
                "response": {"id": "r", "incomplete_details": {"reason": "max_output_tokens"}},
            },
            "Incomplete response returned, reason: max_output_tokens",
            2,
        ),
    ],
    ids=["context-window", "failed", "incomplete"],
)
async def test_response_failed_and_incomplete_are_clear_turn_errors(event, message, requests) -> None:
    created = {"type": "response.created", "response": {"id": "r"}}
    async with ResponsesServer([Events([created, event])] * 2, allow_leftover=True) as srv:
        result = await cx.Session().run_turn("hi", model=model_for(srv, stream_max_retries=1))
    assert result.status == "failed"
    assert result.error == message
    assert len(srv.requests) == requests


@pytest.mark.parametrize("wait", ["30", "1e308"])  # 1e308: clamped to the 60 s maximum, still waiting
async def test_interrupt_during_retry_backoff_stops_at_once(no_leaked_tasks, wait: str) -> None:
    """The turn waits (neither failed nor hung on the announced wait) and Stop ends it at once."""
    async with ResponsesServer([HttpError(429, headers={"Retry-After": wait})]) as srv:
        session = cx.Session()
        seen = asyncio.Event()
        session.subscribe(lambda e: seen.set() if e.msg.type == "stream_error" else None)
        handle = session.start_turn("hi", model=model_for(srv))
        await seen.wait()
        handle.interrupt()
        result = await asyncio.wait_for(handle, 5)
    assert result.status == "interrupted"


# ---------------------------------------------------------------- secrets


async def test_the_key_never_shows_in_reprs_events_logs_or_tracebacks(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"error": {"message": f"bad key {SECRET}"}}
    async with ResponsesServer([HttpError(400, body=body)]) as srv:
        url = srv.base_url
        model = model_for(srv)
        session = cx.Session()
        log = RecordingSubscriber(session)
        result = await session.run_turn("hi", model=model)
        with pytest.raises(cx.ModelError) as caught:
            srv.script.append(HttpError(401, body=body))
            await model.sample(ModelRequest(turn_id="t", items=[], tools=[], tool_generation=0))
    assert result.status == "failed" and "bad key ***" in result.error
    rendered = "".join(traceback.format_exception(caught.value))
    for text in (repr(model), str(model.__dict__), json.dumps(log.wire()), caplog.text, rendered, result.error):
        assert SECRET not in text
    assert (
        repr(model) == f"ResponsesModel(model='local-model', provider='custom', base_url='{url}', "
        f"api_key=set (passed in))"
    )
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle

        pickle.dumps(model)


async def test_a_sample_only_model_reports_usage_through_last_usage() -> None:
    class Counting:
        """A model without stream(): the turn loop reads ``last_usage`` after each sample."""

        def __init__(self) -> None:
            self.last_usage = None
            self.steps = [[cx.function_call("update_plan", PLAN, call_id="c1")], [cx.assistant_message("ok")]]

        async def sample(self, request):
            self.last_usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
            return self.steps.pop(0)

    session = cx.Session()
    result = await session.run_turn("go", model=Counting())
    assert result.token_usage == TokenUsage(input_tokens=20, output_tokens=4, total_tokens=24)
    assert (
        session.last_token_usage
        == result.last_token_usage
        == TokenUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    )
    assert [e.msg.type for e in result.events].count("token_count") == 2
