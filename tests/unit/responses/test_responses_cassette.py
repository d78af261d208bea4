"""``cx.ResponsesModel(cassette=...)`` through the public API, against the real local Responses server:
record a turn, stop the server, replay it identically; mismatches, secrets, bad files, concurrency."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.errors import CassetteError, ConfigError
from codex_nb.testing import Events, HttpError, ResponsesServer

from helpers.responses_streams import add_wait_here, held_call_events, text_events

SECRET = "sk-test-SECRET-0123456789"
PLAN = {"plan": [{"step": "Read the code", "status": "in_progress"}]}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def script() -> list[Any]:
    return [
        [cx.function_call("update_plan", PLAN, call_id="call_plan")],
        Events(text_events("The plan ", "is ", "set.")),
    ]


def stable(result: Any) -> dict[str, list[Any]]:
    """A turn's events without what differs on every run (uuids, clock readings, durations), in
    order within each kind. Across kinds the order is the event loop's: a tool call's plan_update
    and the response's token_count race (a call runs while the stream goes on), live as in replay,
    and the first loaded run saw them swap."""
    text = json.dumps([e.msg.to_wire() for e in result.events])
    text = UUID.sub("<uuid>", text)
    text = re.sub(r'"(started_at_ms|completed_at_ms|durationMs)": \d+', r'"\1": 0', text)
    by_kind: dict[str, list[Any]] = {}
    for event in json.loads(text):
        by_kind.setdefault(event["type"], []).append(event)
    return by_kind


DEAD = "http://127.0.0.1:9/v1"  # nothing listens there: a replay that tried the network would fail


async def record(path: Path, *, prompt: str = "make a plan", **options: Any) -> tuple[Any, ResponsesServer, Any]:
    async with ResponsesServer(script()) as srv:
        model = cx.ResponsesModel(model="local-model", base_url=srv.base_url, api_key=SECRET, cassette=path, **options)
        result = await cx.Session().run_turn(prompt, model=model)
    assert result.status == "completed", result.error
    return result, srv, model


# ------------------------------------------------------------------------- record, then replay


async def test_a_recorded_turn_replays_identically_with_the_server_stopped_and_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_leaked_tasks: None
) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    live, srv, recorder = await record(path)
    assert len(srv.requests) == 2 and path.is_file()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # the built-in openai provider (api.openai.com), whose key is missing: a replay needs none, and no network
    model = cx.ResponsesModel(model="local-model", cassette=path, record_mode="none")
    replayed = await cx.Session().run_turn("make a plan", model=model)
    assert replayed.status == "completed", replayed.error
    assert replayed.items == live.items
    assert replayed.outputs() == live.outputs() and live.outputs()
    assert stable(replayed) == stable(live)
    assert replayed.token_usage == live.token_usage and model.last_usage == recorder.last_usage
    assert replayed.last_agent_message == "The plan is set."
    assert model.cassette is not None and model.cassette.unplayed == 0


async def test_once_records_a_missing_cassette_then_only_replays(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path, record_mode="once")
    async with ResponsesServer([]) as srv:  # any request reaching it fails the test
        model = cx.ResponsesModel(model="local-model", base_url=srv.base_url, cassette=path)
        result = await cx.Session().run_turn("make a plan", model=model)
    assert result.status == "completed", result.error
    assert srv.requests == []


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


async def test_the_raw_chunks_replay_through_the_real_parser(tmp_path: Path) -> None:
    """Chunks cut mid-line and mid-character (one stored as base64) reach the SSE parser as recorded."""
    path = tmp_path / "turns.cassette.jsonl"
    await record(path, prompt="talk")
    lines = path.read_text().splitlines()
    second = json.loads(lines[2])
    stream = b"".join(sse(e) for e in text_events("h\u00e9llo ", "w\u00f6rld"))
    cut = stream.index("\u00e9".encode()) + 1  # inside the two bytes of one character
    pieces = [stream[:7], stream[7:cut], stream[cut : cut + 1], stream[cut + 1 :]]
    second["response"]["body"]["chunks"] = [
        {"base64": base64.b64encode(p).decode()} if _split_char(p) else p.decode() for p in pieces
    ]
    path.write_text("\n".join([lines[0], lines[1], json.dumps(second)]) + "\n")
    model = cx.ResponsesModel(model="local-model", base_url=DEAD, cassette=path, record_mode="none")
    replayed = await cx.Session().run_turn("talk", model=model)
    wire = [e.msg.to_wire() for e in replayed.events]
    assert [w["delta"] for w in wire if w["type"] == "agent_message_delta"] == ["h\u00e9llo ", "w\u00f6rld"]


def _split_char(piece: bytes) -> bool:
    try:
        piece.decode()
    except UnicodeDecodeError:
        return True
    return False


async def test_a_live_stream_is_recorded_as_the_raw_event_stream(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    deltas = [f"word{i} " for i in range(40)]
    async with ResponsesServer([Events(text_events(*deltas))]) as srv:
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, api_key=SECRET, cassette=path)
        live = await cx.Session().run_turn("talk", model=model)
    interaction = json.loads(path.read_text().splitlines()[1])
    chunks = interaction["response"]["body"]["chunks"]
    assert "".join(chunks).encode() == b"".join(sse(e) for e in text_events(*deltas))
    assert interaction["response"]["status"] == {"code": 200, "message": "OK"}
    assert interaction["response"]["headers"]["Content-Type"] == ["text/event-stream"]
    replay = cx.ResponsesModel(model="m", base_url=DEAD, cassette=path, record_mode="none")
    replayed = await cx.Session().run_turn("talk", model=replay)
    wire = [e.msg.to_wire() for e in replayed.events]
    assert [w["delta"] for w in wire if w["type"] == "agent_message_delta"] == deltas
    assert stable(replayed) == stable(live)


async def test_a_retried_server_error_is_recorded_and_replayed_in_order(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    async with ResponsesServer([HttpError(503), Events(text_events("ok"))]) as srv:
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, api_key=SECRET, cassette=path)
        live = await cx.Session().run_turn("hi", model=model)
    assert live.status == "completed", live.error
    codes = [json.loads(line)["response"]["status"]["code"] for line in path.read_text().splitlines()[1:]]
    assert codes == [503, 200]
    replay = cx.ResponsesModel(model="m", base_url=DEAD, cassette=path, record_mode="none")
    replayed = await cx.Session().run_turn("hi", model=replay)
    assert stable(replayed) == stable(live) and replayed.last_agent_message == "ok"


# ----------------------------------------------------------------------------------- matching


async def test_a_mismatch_fails_the_turn_with_a_diff_and_never_goes_to_the_network(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path)
    async with ResponsesServer([]) as srv:
        model = cx.ResponsesModel(model="local-model", base_url=srv.base_url, cassette=path, record_mode="once")
        result = await cx.Session().run_turn("make a different plan", model=model)
    assert srv.requests == []
    assert result.status == "failed"
    error = result.error or ""
    assert f"cassette {path}" in error and "interaction 1 (line 2)" in error
    assert "record_mode='new_episodes'" in error and "record_mode='all'" in error
    assert '-          "text": "make a plan"' in error and '+          "text": "make a different plan"' in error
    assert len(error.splitlines()) < 40  # a short diff, not the whole body


async def test_what_changes_between_runs_still_matches(tmp_path: Path) -> None:
    """A new thread id (prompt_cache_key), a temp path and a timestamp in the prompt are normalised."""
    path = tmp_path / "turns.cassette.jsonl"
    first, second = tempfile.mkdtemp(), tempfile.mkdtemp()
    await record(path, prompt=f"look at {first}/notes.md, written 2026-11-30T10:00:00Z")
    recorded_key = json.loads(path.read_text().splitlines()[1])["request"]["body"]["prompt_cache_key"]
    model = cx.ResponsesModel(model="local-model", base_url=DEAD, cassette=path)
    result = await cx.Session().run_turn(f"look at {second}/notes.md, written 2026-12-02T04:00:00Z", model=model)
    assert result.status == "completed", result.error
    assert model.last_request is not None and model.last_request["prompt_cache_key"] != recorded_key


async def test_new_episodes_replays_what_matches_and_records_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path)
    async with ResponsesServer([Events(text_events("fresh"))]) as srv:
        model = cx.ResponsesModel(
            model="local-model", base_url=srv.base_url, api_key=SECRET, cassette=path, record_mode="new_episodes"
        )
        replayed = await cx.Session().run_turn("make a plan", model=model)
        recorded = await cx.Session().run_turn("something new", model=model)
    assert replayed.status == recorded.status == "completed"
    assert len(srv.requests) == 1 and recorded.last_agent_message == "fresh"
    assert len(path.read_text().splitlines()) == 4


async def test_all_re_records_the_whole_cassette(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path)
    _, srv, _ = await record(path, record_mode="all")
    assert len(srv.requests) == 2
    assert len(path.read_text().splitlines()) == 3  # the header and the new two, not four


async def test_record_mode_none_needs_the_file(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="does not exist and record_mode='none' only replays"):
        cx.ResponsesModel(model="m", base_url=DEAD, cassette=tmp_path / "x.jsonl", record_mode="none")
    with pytest.raises(ConfigError, match="record_mode= and cassette_filters= need cassette="):
        cx.ResponsesModel(model="m", base_url=DEAD, record_mode="none")


async def test_recording_still_needs_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        cx.ResponsesModel(model="m", cassette=tmp_path / "new.cassette.jsonl")


# ------------------------------------------------------------------------------------ secrets


async def test_no_secret_lands_in_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    env_key, org_token = "env-key-value-77777777", "org-token-value-55555555"
    monkeypatch.setenv("OPENAI_API_KEY", env_key)
    monkeypatch.setenv("MY_ORG_TOKEN", org_token)
    config = {
        "model": "local-model",
        "model_provider": "local",
        "model_providers": {
            "local": {
                "base_url": "http://placeholder/v1",
                "env_key": "OPENAI_API_KEY",
                "env_http_headers": {"X-Org": "MY_ORG_TOKEN"},
                "http_headers": {"api-key": "header-key-value-33333333"},
            }
        },
    }
    echo = (
        f"the key {env_key}, the org {org_token}, the header header-key-value-33333333, "
        f"a Bearer abcdefghij0123456789 and the word private-word"
    )
    async with ResponsesServer([Events(text_events(echo[:30], echo[30:]))]) as srv:
        config["model_providers"]["local"]["base_url"] = srv.base_url  # type: ignore[index]
        # the provider comes from Codex's config: env_http_headers as Codex names them
        model = cx.ResponsesModel.from_config(config, cassette=path, cassette_filters=["private-word"])
        result = await cx.Session().run_turn(f"my key is {env_key}; tell me a secret", model=model)
    assert result.status == "completed", result.error
    sent = srv.headers[0]
    assert sent["authorization"] == f"Bearer {env_key}" and sent["x-org"] == org_token  # they were sent
    text = path.read_text()
    for secret in (env_key, org_token, "header-key-value-33333333", "abcdefghij0123456789", "private-word"):
        assert secret not in text, secret
    headers = {k.lower(): v for k, v in json.loads(text.splitlines()[1])["request"]["headers"].items()}
    assert headers["authorization"] == headers["x-org"] == headers["api-key"] == "***"


# ---------------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"codex_nb_cassette": 1, "kind": "responses"}\n{"request": {}, "resp', "truncated at line 2"),
        ('{"codex_nb_cassette": 1, "kind": "responses"}\n{"request": {}}\n', "line 2: a responses interaction needs"),
        ("interactions:\n- request:\n    body: null\n", "vcrpy YAML cassette"),
        (
            '{"codex_nb_cassette": 2, "kind": "responses", "codex_nb_version": "9.9"}\n',
            "codex_nb 9.9 in cassette format 2",
        ),
        ('{"codex_nb_cassette": 1, "kind": "jsonrpc"}\n', "holds a 'jsonrpc' recording"),
    ],
)
def test_a_bad_cassette_is_a_clear_error_at_construction(tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "bad.cassette.jsonl"
    path.write_text(content)
    with pytest.raises(CassetteError) as info:
        cx.ResponsesModel(model="m", base_url=DEAD, cassette=path)
    assert words in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r["body"].update(chunks=[42]),
        lambda r: r["body"].update(chunks=[{"base64": "not base64!"}]),
        lambda r: r.update(headers={"content-type": "text/event-stream"}),
        lambda r: r.update(status={"code": 99}),
        lambda r: r.pop("body"),
    ],
)
async def test_a_hand_edited_response_fails_the_turn_naming_the_line(tmp_path: Path, edit: Any) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path)
    lines = path.read_text().splitlines()
    broken = json.loads(lines[1])
    edit(broken["response"])
    path.write_text("\n".join([lines[0], json.dumps(broken), *lines[2:]]) + "\n")
    model = cx.ResponsesModel(model="local-model", base_url=DEAD, cassette=path)
    result = await cx.Session().run_turn("make a plan", model=model)
    assert result.status == "failed"
    assert f"cassette {path}, line 2: the recorded response is malformed" in (result.error or "")


# -------------------------------------------------------------------------------- concurrency


async def test_two_turns_recording_one_cassette_at_once_do_not_interleave(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    long = "x" * 200_000
    answers = [Events(text_events(long, item_id="a")), Events(text_events(long, item_id="b"))]
    async with ResponsesServer(answers) as srv:
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, api_key=SECRET, cassette=path)
        results = await asyncio.gather(
            cx.Session().run_turn("first", model=model), cx.Session().run_turn("second", model=model)
        )
    assert [r.status for r in results] == ["completed", "completed"]
    lines = path.read_text().splitlines()
    prompts = sorted(json.loads(line)["request"]["body"]["input"][0]["content"][0]["text"] for line in lines[1:])
    assert prompts == ["first", "second"]
    replay = cx.ResponsesModel(model="m", base_url=DEAD, cassette=path, record_mode="none")
    again = await asyncio.gather(
        cx.Session().run_turn("second", model=replay), cx.Session().run_turn("first", model=replay)
    )
    assert [r.status for r in again] == ["completed", "completed"]


RECORDER = """
import asyncio, sys
import codex_nb as cx
from codex_nb.testing import Events, ResponsesServer

async def main():
    async with ResponsesServer([Events(EVENTS)] * 1000, allow_leftover=True) as srv:
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, api_key="k-12345678", cassette=sys.argv[1],
                                  record_mode="new_episodes")
        for n in range(1000):
            result = await cx.Session().run_turn(f"turn {n}", model=model)
            assert result.status == "completed", result.error
            print(n, flush=True)

asyncio.run(main())
"""


def test_a_kernel_killed_while_recording_leaves_a_whole_cassette(tmp_path: Path) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    events = text_events("y" * 300_000)
    script = tmp_path / "recorder.py"
    script.write_text("EVENTS = " + repr(events) + "\n" + textwrap.dedent(RECORDER))
    proc = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for _ in range(3):
        assert proc.stdout.readline(), "the recorder died"
    proc.kill()
    proc.communicate(timeout=60)
    model = cx.ResponsesModel(model="m", base_url=DEAD, cassette=path, record_mode="none")
    assert model.cassette is not None and len(model.cassette.recorded) >= 3  # the file parses whole


async def test_an_interrupted_stream_is_not_recorded(tmp_path: Path) -> None:
    """A half-received response would replay as a dropped stream: it is left out, and the next run records."""
    path = tmp_path / "turns.cassette.jsonl"
    async with ResponsesServer([Events(held_call_events(), hold_after=2)]) as srv:
        session = cx.Session()
        started = add_wait_here(session)
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, api_key=SECRET, cassette=path)
        handle = session.start_turn("go", model=model)
        await started.wait()
        assert handle.interrupt()
        result = await handle
        assert await asyncio.to_thread(srv.disconnected.wait, 5)
    assert result.status == "interrupted"
    assert not path.exists()


def _cut(chunks: list[Any]) -> list[Any]:
    whole = "".join(c for c in chunks if isinstance(c, str))
    return [whole[: whole.index("response.completed")]]  # ends before the stream's last event


def _garbled(chunks: list[Any]) -> list[Any]:
    return ["".join(c for c in chunks if isinstance(c, str)).replace("data: {", "data: {{", 1)]


@pytest.mark.parametrize(
    ("edit", "what"),
    [
        (_cut, "stream closed before response.completed"),
        (_garbled, "malformed event from the model provider (not JSON"),
    ],
)
async def test_a_cut_or_garbled_recorded_stream_is_named_by_its_line(tmp_path: Path, edit: Any, what: str) -> None:
    path = tmp_path / "turns.cassette.jsonl"
    await record(path)
    lines = path.read_text().splitlines()
    broken = json.loads(lines[2])  # the second response: the answer after the plan
    broken["response"]["body"]["chunks"] = edit(broken["response"]["body"]["chunks"])
    path.write_text("\n".join([*lines[:2], json.dumps(broken), *lines[3:]]) + "\n")
    model = cx.ResponsesModel(model="local-model", base_url=DEAD, cassette=path)
    result = await cx.Session().run_turn("make a plan", model=model)
    assert result.status == "failed"
    error = result.error or ""
    assert error.startswith(f"cassette {path}, line 3: the recorded response stream is broken"), error
    assert what in error and "already played" not in error, error
    assert "restore the line from git or re-record with record_mode='all'" in error
