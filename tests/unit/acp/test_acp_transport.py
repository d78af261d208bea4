"""The ACP transport validates each ``session/update`` once and hands the SDK the model.

The SDK validates a notification's params with ``model_validate``; given the model the
transport already built, pydantic returns it as it is (``revalidate_instances="never"``).
These tests pin that contract: if the SDK or pydantic ever validated the instance again,
the pass-through would silently cost a second validation per update, and they fail.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from acp.client.router import build_client_router
from acp.schema import SessionNotification

from codex_nb.acp.mapping import PLAN_NOTE
from codex_nb.acp.transport import CheckedTransport


def _plan(entries: list[Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": {"sessionUpdate": "plan", "entries": entries}},
    }


async def _received(*messages: Any) -> tuple[list[Any], list[str]]:
    reader = asyncio.StreamReader()
    for message in messages:
        reader.feed_data((message if isinstance(message, str) else json.dumps(message)).encode() + b"\n")
    reader.feed_eof()
    reported: list[str] = []
    transport = CheckedTransport(reader, None, reported.append, limit=2**16)  # type: ignore[arg-type]
    received = []
    while (message := await transport.receive()) is not None:
        received.append(message)
    return received, reported


async def test_a_session_update_reaches_the_sdk_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = {"content": "read the code", "priority": "high", "status": "in_progress"}
    [message], reported = await _received(_plan([entry]))
    params = message["params"]
    assert type(params) is SessionNotification and not reported
    assert SessionNotification.model_validate(params) is params

    calls: list[dict[str, Any]] = []

    class Client:
        async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
            calls.append({"session_id": session_id, "update": update})

    validations = 0
    validate = SessionNotification.model_validate

    def counting(value: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal validations
        if not isinstance(value, SessionNotification):
            validations += 1
        return validate(value, *args, **kwargs)

    monkeypatch.setattr(SessionNotification, "model_validate", counting)
    router = build_client_router(Client())  # type: ignore[arg-type]
    await router("session/update", params, True)
    assert validations == 0  # the SDK took the transport's model: no second validation
    [call] = calls
    assert call["session_id"] == "s1" and call["update"].entries[0].content == "read the code"


async def test_a_plan_the_sdk_would_thin_out_is_repaired_and_noted() -> None:
    good = {"content": "kept", "priority": "low", "status": "pending"}
    bad = {"content": 7, "priority": "urgent", "status": "doing"}
    [message], reported = await _received(_plan([good, bad, "a bare string"]))
    entries = message["params"].update.entries
    assert [e.content for e in entries] == ["kept", "7", "a bare string"]
    assert [e.status for e in entries] == ["pending", "pending", "pending"]
    assert entries[0].field_meta is None  # an entry that was valid is not touched
    assert "not an ACP status" in entries[1].field_meta[PLAN_NOTE]
    assert "not an object" in entries[2].field_meta[PLAN_NOTE]
    assert not reported


async def test_invalid_updates_are_reported_and_the_next_line_still_arrives() -> None:
    broken = {"jsonrpc": "2.0", "method": "session/update", "params": {"update": {"sessionUpdate": "plan"}}}
    ok = _plan([{"content": "a", "priority": "high", "status": "completed"}])
    received, reported = await _received(broken, "[1]", ok)
    assert len(received) == 1 and type(received[0]["params"]) is SessionNotification
    assert len(reported) == 2 and reported[0].startswith("session/update with invalid params")


async def test_a_notification_no_client_reads_is_left_out_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """Qwen Code 0.24 sends ``qwen/notify/session/mode-update`` beside ACP's own update; the SDK
    would log a "Method not found" traceback for it (red under a notebook cell). An extension
    (``_`` prefix) and a request of an unknown method still reach the SDK, which answers them."""
    reader = asyncio.StreamReader()
    odd = {"jsonrpc": "2.0", "method": "qwen/notify/session/mode-update", "params": {"currentModeId": "default"}}
    extension = {"jsonrpc": "2.0", "method": "_vendor/thing", "params": {}}
    request = {"jsonrpc": "2.0", "id": 7, "method": "craft/drainMidTurnQueue", "params": {}}
    invented = [{"jsonrpc": "2.0", "method": f"x/{i}"} for i in range(150)]
    for message in [odd, odd, extension, request, *invented, _plan([])]:
        reader.feed_data(json.dumps(message).encode() + b"\n")
    reader.feed_eof()
    reported: list[str] = []
    transport = CheckedTransport(reader, None, reported.append, limit=2**16)  # type: ignore[arg-type]
    received = []
    with caplog.at_level("INFO", logger="codex_nb.acp.transport"):
        while (message := await transport.receive()) is not None:
            received.append(message)
    assert [m["method"] for m in received] == ["_vendor/thing", "craft/drainMidTurnQueue", "session/update"]
    assert not reported and transport.malformed == 0
    assert transport.unread["qwen/notify/session/mode-update"] == 2
    assert len(transport.unread) == 101 and transport.unread["(other methods)"] == 51  # bounded
    assert [r.levelname for r in caplog.records] == ["INFO"] * 101
