"""The ``Events`` script entry of the shared ResponsesServer: verbatim events and held streams."""

from __future__ import annotations

import http.client
import json

from codex_nb.testing import Events, ResponsesServer


def _post(port: int) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/v1/responses", body=json.dumps({"model": "m"}), headers={"Content-Type": "application/json"})
    return conn.getresponse()


def _frames(raw: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in raw.decode().splitlines() if line.startswith("data: ")]


def test_events_are_streamed_verbatim() -> None:
    events = [
        {"type": "response.created", "response": {"id": "r"}},
        {"type": "response.failed", "response": {"id": "r", "error": {"code": "x", "message": "boom"}}},
    ]
    with ResponsesServer([Events(events)]) as srv:
        assert _frames(_post(srv.port).read()) == events
    assert srv.disconnects == 0


def test_held_stream_sees_the_client_hang_up() -> None:
    events = [{"type": "response.created", "response": {"id": "r"}}, {"type": "response.completed"}]
    with ResponsesServer([Events(events, hold_after=1)]) as srv:
        response = _post(srv.port)
        first = response.readline() + response.readline() + response.readline()
        assert _frames(first) == events[:1]
        response.close()  # the client hangs up mid-stream
        assert srv.disconnected.wait(10)
    assert srv.disconnects == 1
