"""The JSON-RPC half of the hand-written test agents (``form_agent.py``, ``v2_agent.py``,
``notices_agent.py``, ``plan_review_agent.py``): one line writer for every thread, the client's
messages read as ``(method, id, params)`` by ``incoming``, and requests to the client whose answers
``incoming`` hands back to the ``request`` waiting for them. Written by hand, not with the SDK, so that an agent can send what
the SDK's agent side would refuse (a v2 prompt response, a hostile schema)."""

from __future__ import annotations

import itertools
import json
import sys
import threading
from collections.abc import Iterator
from typing import Any

_write_lock = threading.Lock()
_ids = itertools.count(1000)
_answers: dict[int, dict[str, Any]] = {}
_answered = threading.Condition()


def send(message: dict[str, Any]) -> None:
    """Write one JSON-RPC message (``jsonrpc`` added) as a line on stdout."""
    with _write_lock:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        sys.stdout.flush()


def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Ask the client and wait for its response (the whole message: ``result`` or ``error``)."""
    rid = next(_ids)
    send({"id": rid, "method": method, "params": params})
    with _answered:
        _answered.wait_for(lambda: rid in _answers)
        return _answers.pop(rid)


def answered(message: dict[str, Any]) -> None:
    """Hand the client's response to the ``request`` waiting for it."""
    with _answered:
        _answers[message["id"]] = message
        _answered.notify_all()


def incoming() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """Each request or notification the client sends on stdin, as ``(method, id, params)``; the
    client's answers to the agent's own requests go to ``answered`` on the way."""
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if method is None:
            answered(message)
            continue
        yield method, message.get("id"), message.get("params") or {}
