"""The local Responses-API server: real HTTP + SSE, strict scripting, faults, and a real Codex turn."""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import tomllib
from pathlib import Path

import pytest

import codex_nb as cx
from helpers.codex_exec import codex_exec
from codex_nb.testing import (
    CutStream,
    Garbage,
    HttpError,
    ResponsesServer,
    ResponsesServerError,
    Stall,
    codex_binary,
)


def post(srv: ResponsesServer, body: dict | None = None, *, timeout: float = 10) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)
    try:
        conn.request(
            "POST",
            "/v1/responses",
            body=json.dumps(body or {"input": []}),
            headers={"Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def events(raw: bytes) -> list[dict]:
    out = []
    for block in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if line)
        if lines:
            data = json.loads(lines["data"])
            assert lines["event"] == data["type"]
            out.append(data)
    return out


def test_streams_items_as_responses_api_sse_and_records_bodies() -> None:
    call = cx.function_call("update_plan", {"plan": []}, call_id="c1")
    with ResponsesServer([[call, cx.assistant_message("hi")]]) as srv:
        assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1" and srv.port > 0
        status, headers, raw = post(srv, {"model": "m", "input": [{"type": "message"}]})
    assert status == 200 and headers["content-type"] == "text/event-stream"
    evs = events(raw)
    assert [e["type"] for e in evs] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_item.done",
        "response.completed",
    ]
    assert evs[3]["item"] == call and evs[6]["item"] == cx.assistant_message("hi")
    assert evs[4]["item"]["content"] == [] and evs[5]["delta"] == "hi" and evs[5]["output_index"] == 1
    usage = evs[-1]["response"]["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0
    assert srv.requests == [{"model": "m", "input": [{"type": "message"}]}]


def test_a_client_hanging_up_mid_request_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """In a kernel, anything the server thread prints lands in the cell running then (nbval saw a
    stray stderr output when a retried client hung up); the next request is served as usual."""
    import socket
    import struct
    import threading

    with ResponsesServer([[cx.assistant_message("still here")]]) as srv:
        client = socket.create_connection(("127.0.0.1", srv.port))
        client.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, not a FIN: the handler's next read fails
        status, _, body = post(srv)
        assert status == 200 and b"still here" in body
        for thread in threading.enumerate():  # every request handler has ended, the reset one too
            if "process_request_thread" in thread.name:
                thread.join(10)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_callable_entries_see_the_request_body() -> None:
    seen = []

    def reply(body: dict) -> list:
        seen.append(body["input"])
        return [cx.assistant_message(f"{len(body['input'])} items")]

    with ResponsesServer([reply]) as srv:
        _, _, raw = post(srv, {"input": [1, 2, 3]})
    assert seen == [[1, 2, 3]]
    assert events(raw)[-2]["item"] == cx.assistant_message("3 items")


def test_http_error_carries_status_body_and_headers() -> None:
    with ResponsesServer(
        [HttpError(429, {"error": {"message": "slow down"}}, {"Retry-After": "7"}), HttpError(503)]
    ) as srv:
        status, headers, raw = post(srv)
        assert (status, headers["retry-after"], json.loads(raw)) == (429, "7", {"error": {"message": "slow down"}})
        status, _, raw = post(srv)
        assert status == 503 and "scripted HTTP 503" in raw.decode()


def test_cut_stream_ends_without_completed() -> None:
    items = [cx.function_call("a", {}, call_id="1"), cx.function_call("b", {}, call_id="2")]
    with ResponsesServer([CutStream(after_items=1, items=items)]) as srv:
        _, _, raw = post(srv)
    evs = events(raw)
    assert [e["type"] for e in evs][-1] == "response.output_item.done" and evs[-1]["item"]["call_id"] == "1"
    assert "response.completed" not in [e["type"] for e in evs]


def test_stall_then_resume_and_stall_released_on_close() -> None:
    with ResponsesServer([Stall(0.01, then=[cx.assistant_message("late")])]) as srv:
        _, _, raw = post(srv)
    assert events(raw)[-1]["type"] == "response.completed"

    srv = ResponsesServer([Stall(3600)]).start()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    conn.request("POST", "/v1/responses", body="{}")
    resp = conn.getresponse()
    first = resp.fp.readline()
    assert first.startswith(b"event: response.created")
    srv.close()  # must not wait an hour: the stall ends when the server shuts down
    rest = resp.read()
    conn.close()
    assert b"response.completed" not in rest


def test_garbage_is_sent_raw() -> None:
    with ResponsesServer([Garbage("data: {not json\n\n")]) as srv:
        status, _, raw = post(srv)
    assert status == 200 and raw == b"data: {not json\n\n"


def test_over_use_answers_500_and_fails_the_check() -> None:
    srv = ResponsesServer([[cx.assistant_message("only")]])
    with pytest.raises(ResponsesServerError, match="asked for response 2 but only 1"):
        with srv:
            post(srv)
            status, _, raw = post(srv)
            assert status == 500 and "only 1 were scripted" in raw.decode()
    assert len(srv.requests) == 2


def test_leftover_entries_fail_unless_allowed() -> None:
    with pytest.raises(ResponsesServerError, match="1 scripted response"):
        with ResponsesServer([[cx.assistant_message("never")]]):
            pass
    with ResponsesServer([[cx.assistant_message("never")]], allow_leftover=True) as srv:
        pass
    assert srv.remaining == 1


def test_broken_callable_is_a_recorded_failure_not_a_dead_server() -> None:
    def broken(body: dict) -> list:
        raise ValueError("boom")

    srv = ResponsesServer([broken, [cx.assistant_message("after")]])
    with pytest.raises(ResponsesServerError, match="script entry 0 raised ValueError: boom"):
        with srv:
            assert post(srv)[0] == 500
            assert post(srv)[0] == 200


def test_bad_scripts_are_rejected_up_front() -> None:
    with pytest.raises(TypeError, match="entry 0 must be a list of output items"):
        ResponsesServer([cx.assistant_message("not wrapped")])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="takes a list"):
        ResponsesServer("nope")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="not running"):
        ResponsesServer([]).base_url


def test_unknown_paths_are_404_and_recorded() -> None:
    with ResponsesServer([]) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request("GET", "/v1/models")
        resp = conn.getresponse()
        assert resp.status == 404 and b"only POST /v1/responses" in resp.read()
        conn.close()
    assert srv.other_requests == [("GET", "/v1/models")]


def _post_json(srv: ResponsesServer, path: str, body: bytes) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    out = resp.status, resp.read()
    conn.close()
    return out


def test_routes_answer_the_providers_other_endpoints_and_keep_each_body() -> None:
    def broken(body: dict) -> dict:
        raise ValueError("no")

    routes = {"alpha/search": lambda body: {"output": body["q"]}, "/v1/images/generations": broken}
    with pytest.raises(ResponsesServerError, match="route /v1/images/generations raised ValueError: no"):
        with ResponsesServer([], routes=routes) as srv:
            assert _post_json(srv, "/v1/alpha/search", b'{"q": "codex"}') == (200, b'{"output": "codex"}')
            status, text = _post_json(srv, "/v1/alpha/search", b"{not json")
            assert status == 400 and b"not JSON" in text
            assert _post_json(srv, "/v1/images/generations", b"{}")[0] == 500
    assert srv.route_requests == [("/v1/alpha/search", {"q": "codex"}), ("/v1/images/generations", {})]
    assert srv.requests == [] and srv.other_requests == []


async def test_async_context_manager() -> None:
    async with ResponsesServer([[cx.assistant_message("async")]]) as srv:
        status, _, raw = await asyncio.to_thread(post, srv)
    assert status == 200 and events(raw)[-2]["item"]["content"][0]["text"] == "async"


def test_write_codex_home_points_at_the_server(tmp_path: Path) -> None:
    with ResponsesServer([]) as srv:
        home = srv.write_codex_home(tmp_path / "home", tools={"update_plan": {"enabled": True}}, model="gpt-x")
        config = tomllib.loads((home / "config.toml").read_text())
        base_url = srv.base_url
    assert config["model"] == "gpt-x" and config["model_provider"] == "local"
    assert config["model_providers"]["local"] == {
        "name": "local",
        "base_url": base_url,
        "wire_api": "responses",
        "request_max_retries": 0,
        "stream_max_retries": 0,
    }
    assert config["tools"] == {"update_plan": {"enabled": True}}


@pytest.mark.requires_codex
def test_real_codex_runs_a_whole_turn_offline(tmp_path: Path) -> None:
    script = [
        [cx.function_call("update_plan", {"plan": [{"step": "read", "status": "in_progress"}]}, call_id="c1")],
        [cx.assistant_message("all done")],
    ]
    with ResponsesServer(script) as srv:
        home = srv.write_codex_home(tmp_path / "home", tools={"update_plan": {"enabled": True}})
        proc = codex_exec(home, cwd=tmp_path, json_events=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "all done"}} in lines
    assert lines[-1]["type"] == "turn.completed"
    assert len(srv.requests) == 2
    assert "update_plan" in [t.get("name") for t in srv.requests[0]["tools"]]
    output = srv.requests[1]["input"][-1]
    assert (output["type"], output["call_id"], output["output"]) == ("function_call_output", "c1", "Plan updated")


@pytest.mark.requires_codex
def test_codex_binary_prefers_codex_bin_then_the_pinned_native_binary(monkeypatch, tmp_path: Path) -> None:
    from codex_nb.testing import CodexNotFound, pinned_codex_version
    from codex_nb.testing.codex_ref import INSTALL_DIR, native_binary

    fake = tmp_path / "codex"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CODEX_BIN", str(fake))
    assert codex_binary() == fake
    monkeypatch.setenv("CODEX_BIN", str(tmp_path / "missing"))
    with pytest.raises(CodexNotFound, match="does not exist"):
        codex_binary()
    monkeypatch.delenv("CODEX_BIN")
    assert pinned_codex_version() == (INSTALL_DIR.parent / ".ci" / "codex-version").read_text().strip()
    pinned = native_binary()
    assert pinned.is_relative_to(INSTALL_DIR / "node_modules" / "@openai") and "vendor" in pinned.parts
    # .ci/setup installed it: the native executable, never the node launcher (bin/codex.js)
    assert pinned.is_file() and codex_binary() == pinned
    out = subprocess.run([str(pinned), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert pinned_codex_version() in out
