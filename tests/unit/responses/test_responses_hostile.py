"""cx.ResponsesModel against a misbehaving Responses server, over real HTTP on 127.0.0.1.

Each test's server does what a broken or hostile model provider might: a ``Retry-After``
that is not a number, bodies that inflate without end, a key echoed in its errors, a
redirect to another host, absurd numbers. The turn must stay bounded, fail (or retry)
with a clear error, and never show the key.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Iterator

import pytest

import codex_nb as cx
from codex_nb.protocol.model_stream import TokenUsage
from codex_nb.protocol.model_stream import MAX_TOKEN_COUNT
from codex_nb.responses import limits
from codex_nb.responses.limits import MAX_RETRY_DELAY_SECONDS, MIB, retry_after
from codex_nb.responses.responses_model import backoff
from codex_nb.testing import Events, HttpError, RecordingSubscriber, ResponsesServer
from codex_nb.testing.responses_server import Raw, Redirect

SECRET = "sk-test-SECRET-0123456789"
OTHER_KEY = "sk-proj-SomeoneElsesKey987654"
BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0dG9rZW4"


def model_for(srv: ResponsesServer, **options) -> cx.ResponsesModel:
    options.setdefault("api_key", SECRET)
    return cx.ResponsesModel(model="local-model", base_url=srv.base_url, **options)


def gzip_chunks(pattern: bytes, total: int, *, head: bytes = b"") -> Iterator[bytes]:
    """``head`` then ``pattern`` repeated to ``total`` bytes, gzip-compressed as it is sent:
    a body a few hundred KB on the wire that inflates to ``total``."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    yield packer.compress(head)
    block = pattern * max(1, MIB // len(pattern))
    sent = 0
    while sent < total:
        out = packer.compress(block)
        sent += len(block)
        if out:
            yield out
    yield packer.flush()


def gzipped(body: Iterator[bytes], *, status: int = 200, content_type: str = "text/event-stream") -> Raw:
    return Raw(body, status=status, headers={"Content-Type": content_type, "Content-Encoding": "gzip"})


async def run(srv: ResponsesServer, **options) -> tuple[cx.TurnResult, RecordingSubscriber]:
    session = cx.Session()
    log = RecordingSubscriber(session)
    result = await asyncio.wait_for(session.run_turn("hi", model=model_for(srv, **options)), 30)
    return result, log


# ---------------------------------------------------------------- Retry-After


@pytest.mark.parametrize(
    "headers",
    [
        {"Retry-After": "nan"},
        {"retry-after-ms": "nan"},
        {"Retry-After": "soon"},
        {"Retry-After": "-5"},
        {"Retry-After": "inf"},
        {"retry-after-ms": "-inf"},
        {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"},
    ],
    ids=["nan", "ms-nan", "garbage", "negative", "inf", "ms-minus-inf", "date-in-the-past"],
)
async def test_a_retry_after_that_is_no_usable_wait_falls_back_to_the_backoff(headers, no_leaked_tasks) -> None:
    async with ResponsesServer([HttpError(429, headers=headers), [cx.assistant_message("ok")]]) as srv:
        result, _ = await run(srv)
    assert result.status == "completed", result.error
    assert [e.msg.message for e in result.events if e.msg.type == "stream_error"] == ["Reconnecting... 1/5"]
    assert len(srv.requests) == 2


def test_retry_after_is_read_as_seconds_milliseconds_or_a_date_and_clamped() -> None:
    assert MAX_RETRY_DELAY_SECONDS == 60.0
    assert retry_after({"retry-after": "1.5"}) == 1.5
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after-ms": "nan", "retry-after": "2"}) == 2.0  # a bad ms header: the other one
    for huge in ("1e308", "99999999", "86400"):
        assert retry_after({"retry-after": huge}) == MAX_RETRY_DELAY_SECONDS
    assert retry_after({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}) == MAX_RETRY_DELAY_SECONDS
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    for bad in ("nan", "inf", "-1", "soon", "", "1" * 400, "Mon, 99 Foo 2015 99:99:99 GMT"):
        assert retry_after({"retry-after": bad}) is None, bad
    assert backoff(100) <= MAX_RETRY_DELAY_SECONDS


# ---------------------------------------------------------------- bounded bodies


async def test_a_gzip_bomb_of_one_endless_line_fails_the_turn_naming_the_line_limit(no_leaked_tasks) -> None:
    """About 1 MB on the wire inflating to 1.1 GB of one line: stopped at 8 MiB, not retried."""
    bomb = gzipped(gzip_chunks(b"x", 1100 * MIB, head=b"data: "))
    async with ResponsesServer([bomb]) as srv:
        result, log = await run(srv)
    assert result.status == "failed"
    assert result.error == (
        "the model provider sent an event-stream line over 8 MiB, codex_nb's limit for one "
        "line; the turn stops so a broken or hostile server cannot exhaust memory"
    )
    assert len(srv.requests) == 1 and "stream_error" not in log.types


async def test_an_event_of_many_lines_is_bounded(no_leaked_tasks) -> None:
    line = b"data: " + b"y" * (MIB - 7) + b"\n"  # one MiB a line, never a blank line
    async with ResponsesServer([gzipped(gzip_chunks(line, 17 * MIB))]) as srv:
        result, _ = await run(srv)
    assert result.status == "failed"
    assert result.error.startswith("the model provider sent an event-stream event over 16 MiB, codex_nb's limit")


async def test_the_whole_streamed_body_is_bounded_after_decompression(no_leaked_tasks) -> None:
    comment = b": " + b"z" * 1021 + b"\n\n"  # 1 KiB events the SSE decoder skips: only the body limit can stop it
    async with ResponsesServer([gzipped(gzip_chunks(comment, 70 * MIB))]) as srv:
        result, _ = await run(srv)
    assert result.status == "failed"
    assert result.error == (
        "the model provider sent a streamed response over 64 MiB (after decompression), "
        "codex_nb's limit; the turn stops so a broken or hostile server cannot exhaust memory"
    )
    assert limits.MAX_BODY_BYTES == 64 * MIB


async def test_an_error_body_is_bounded_too(no_leaked_tasks) -> None:
    body = gzip_chunks(b" ", 3 * MIB, head=b'{"error": {"message": "')
    async with ResponsesServer([gzipped(body, status=500, content_type="application/json")]) as srv:
        result, _ = await run(srv)
    assert result.status == "failed"
    assert result.error.startswith("the model provider sent a HTTP 500 error body over 1 MiB (after decompression)")


async def test_a_normal_gzip_stream_still_works(no_leaked_tasks) -> None:
    message = cx.assistant_message("squeezed")
    events = [
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.completed", "response": {"id": "r"}},
    ]
    raw = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
    async with ResponsesServer([gzipped(iter([zlib.compress(raw, wbits=16 + zlib.MAX_WBITS)]))]) as srv:
        result, _ = await run(srv)
    assert result.status == "completed", result.error
    assert result.last_agent_message == "squeezed"
    assert srv.headers[0]["accept-encoding"] == "gzip, deflate"


# ---------------------------------------------------------------- numbers from the network


async def test_token_counts_are_capped(no_leaked_tasks) -> None:
    usage = {
        "input_tokens": 10**30,
        "output_tokens": 5,
        "total_tokens": 10**40,
        "input_tokens_details": {"cached_tokens": 2**64},
    }
    events = [
        {"type": "response.output_item.done", "output_index": 0, "item": cx.assistant_message("ok")},
        {"type": "response.completed", "response": {"id": "r", "usage": usage}},
    ]
    async with ResponsesServer([Events(events)]) as srv:
        result, _ = await run(srv)
    assert result.status == "completed", result.error
    assert result.token_usage == TokenUsage(
        input_tokens=MAX_TOKEN_COUNT, cached_input_tokens=MAX_TOKEN_COUNT, output_tokens=5, total_tokens=MAX_TOKEN_COUNT
    )
    assert (result.token_usage + result.token_usage).total_tokens == MAX_TOKEN_COUNT


async def test_output_items_per_response_are_bounded(no_leaked_tasks) -> None:
    item = {"type": "reasoning", "id": "rs", "summary": []}
    events = [
        {"type": "response.output_item.done", "output_index": i, "item": item}
        for i in range(limits.MAX_OUTPUT_ITEMS + 1)
    ]
    async with ResponsesServer([Events(events)]) as srv:
        result, _ = await run(srv)
    assert result.status == "failed"
    assert (
        result.error == "the model provider sent over 10000 output items in one response, codex_nb's limit; "
        "the turn stops"
    )


async def test_an_absurd_summary_index_starts_no_section(no_leaked_tasks) -> None:
    events = [
        {"type": "response.reasoning_summary_part.added", "item_id": "rs", "summary_index": index}
        for index in (10**30, -1, True, 1)
    ]
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": cx.assistant_message("ok")},
        {"type": "response.completed", "response": {"id": "r"}},
    ]
    async with ResponsesServer([Events(events)]) as srv:
        result, _ = await run(srv)
    breaks = [e.msg for e in result.events if e.msg.type == "agent_reasoning_section_break"]
    assert [b.summary_index for b in breaks] == [1]


# ---------------------------------------------------------------- keys echoed back

ECHO = f"key {SECRET} or {OTHER_KEY}, header {BEARER}"
ECHOES = {
    "failed": {"type": "response.failed", "response": {"id": "r", "error": {"code": "server_error", "message": ECHO}}},
    "error-event": {"type": "error", "message": ECHO, "code": "oops"},
    "error-event-nested": {"type": "error", "error": {"message": ECHO}},
    "incomplete": {"type": "response.incomplete", "response": {"id": "r", "incomplete_details": {"reason": ECHO}}},
    "malformed-item": {"type": "response.output_item.done", "output_index": 0, "item": {"text": ECHO}},
}


@pytest.mark.parametrize("event", list(ECHOES.values()), ids=list(ECHOES))
async def test_a_key_echoed_by_the_server_is_redacted_from_errors_and_events(event, no_leaked_tasks) -> None:
    created = {"type": "response.created", "response": {"id": "r"}}
    async with ResponsesServer([Events([created, event])] * 2) as srv:
        result, log = await run(srv, stream_max_retries=1)
    assert result.status == "failed"
    shown = result.error + json.dumps(log.wire())
    for secret in (SECRET, OTHER_KEY, BEARER.split()[1]):
        assert secret not in shown
    assert "***" in result.error and "Bearer ***" in result.error
    [note] = [e.msg for e in result.events if e.msg.type == "stream_error"]
    assert "***" in note.additional_details


async def test_an_echo_in_an_http_error_body_is_redacted_for_every_key_shape(no_leaked_tasks) -> None:
    async with ResponsesServer([HttpError(400, body={"error": {"message": ECHO}})]) as srv:
        result, log = await run(srv)
    assert result.error.startswith("unexpected status 400 Bad Request: key *** or ***, header Bearer ***, url: ")
    assert OTHER_KEY not in json.dumps(log.wire())


def test_redaction_leaves_prose_alone() -> None:
    from codex_nb.responses.redact import redact

    assert (
        redact("Bearer authentication is required; see task-identifier sk-learn")
        == "Bearer authentication is required; see task-identifier sk-learn"
    )
    assert redact(f"Authorization: {BEARER}, {OTHER_KEY}, {SECRET}", SECRET) == "Authorization: Bearer ***, ***, ***"
    assert redact("abcd abcd", "abcd") == "*** ***" and redact("x", "") == "x"


async def test_a_long_server_message_is_cut(no_leaked_tasks) -> None:
    event = {"type": "response.failed", "response": {"id": "r", "error": {"message": "m" * 100_000}}}
    async with ResponsesServer([Events([event])]) as srv:
        result, _ = await run(srv, stream_max_retries=0)
    assert result.status == "failed"
    assert result.error == "m" * 2000 + "... (98000 more characters)"


# ---------------------------------------------------------------- redirects


async def test_a_redirect_to_another_origin_is_refused_and_sends_nothing_there(no_leaked_tasks) -> None:
    """httpx (under the openai SDK) follows it by default and drops only Authorization: the provider's
    headers and, for a 307, the whole conversation would reach the other host."""
    async with ResponsesServer([[cx.assistant_message("stolen")]], allow_leftover=True) as other:
        elsewhere = other.base_url
        async with ResponsesServer([Redirect(f"{elsewhere}/responses?k=1")]) as srv:
            result, log = await run(srv, http_headers={"X-Provider-Key": "hdr-secret-value"})
    assert other.requests == [] and other.headers == [], other.headers
    assert result.status == "failed"
    assert result.error == (
        f"the model provider redirected the request to another origin ({elsewhere}/responses"
        f"?k=1); codex_nb does not follow it, so your API key, provider headers and conversation "
        f"are not sent there. If that is the right server, set base_url to it."
    )
    assert len(srv.requests) == 1 and "stream_error" not in log.types


async def test_a_same_origin_redirect_is_followed_with_its_headers(no_leaked_tasks) -> None:
    async with ResponsesServer([[cx.assistant_message("unused")]], allow_leftover=True) as srv:
        srv.script[:] = [Redirect(f"{srv.base_url}/responses?moved=1"), [cx.assistant_message("moved")]]
        result, _ = await run(srv, http_headers={"X-Provider-Key": "hdr"})
    assert result.status == "completed", result.error
    assert srv.paths == ["/v1/responses", "/v1/responses?moved=1"]
    assert srv.headers[1]["authorization"] == f"Bearer {SECRET}" and srv.headers[1]["x-provider-key"] == "hdr"
    assert srv.requests[1] == srv.requests[0]


# ---------------------------------------------------------------- where the key came from, and the SDK


def test_the_repr_says_truthfully_where_the_key_came_from(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-123")
    passed = cx.ResponsesModel(model="m", api_key=SECRET)
    from_env = cx.ResponsesModel(model="m")
    toml = (
        'model = "m"\nmodel_provider = "mine"\n[model_providers.mine]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'env_key = "MINE_KEY"\n'
    )
    configured = cx.ResponsesModel.from_config(toml, environ={"MINE_KEY": "sk-mine-0123456789"})
    explicit = cx.ResponsesModel.from_config(toml, environ={"MINE_KEY": "x"}, api_key=SECRET)
    keyless = cx.ResponsesModel(model="m", base_url="http://127.0.0.1:9/v1")
    assert repr(passed).endswith("api_key=set (passed in))")
    assert repr(from_env).endswith("api_key=set from OPENAI_API_KEY)")
    assert repr(configured).endswith("api_key=set from MINE_KEY)")
    assert repr(explicit).endswith("api_key=set (passed in))")
    assert repr(keyless).endswith("api_key=none)")
    for model in (passed, from_env, configured, explicit):
        assert "sk-" not in repr(model)


async def test_a_turn_without_the_openai_package_names_the_extra_to_install() -> None:
    """A real Python without ``openai`` (``sys.modules['openai'] = None`` blocks the import)."""
    script = textwrap.dedent("""
        import asyncio, json, sys
        sys.modules["openai"] = None
        import codex_nb as cx

        async def main(url):
            model = cx.ResponsesModel(model="m", base_url=url, api_key="sk-test-0123456789")
            result = await cx.Session().run_turn("hi", model=model)
            print(json.dumps({"status": result.status, "error": result.error}))

        asyncio.run(main(sys.argv[1]))
    """)
    async with ResponsesServer([]) as srv:
        proc = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-c", script, srv.base_url], capture_output=True, text=True, timeout=120
        )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {
        "status": "failed",
        "error": (
            "cx.ResponsesModel needs the openai package: install the model extra with pip install -e '.[model]' from "
            "a codex_nb checkout, or pip install 'codex_nb[model]' from a release"
        ),
    }
    assert srv.requests == []


async def test_an_event_whose_type_is_not_a_string_is_skipped_like_an_unknown_one(no_leaked_tasks) -> None:
    events = [
        {"type": ["response.output_text.delta"], "delta": "x"},  # unhashable: no handler lookup may fail on it
        {"type": {"nested": 1}},
        {"type": "response.output_item.done", "output_index": 0, "item": cx.assistant_message("ok")},
        {"type": "response.completed", "response": {"id": "r"}},
    ]
    async with ResponsesServer([Events(events)]) as srv:
        result, _ = await run(srv)
    assert result.status == "completed"
    assert result.last_agent_message == "ok"
