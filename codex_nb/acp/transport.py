"""Newline-delimited JSON framing for the ACP SDK that reports what it cannot use.

The SDK's own stdio framing drops an unparsable line with a log record only, and a
line that parses to something other than an object (``[1]``, ``42``) ends its receive
loop, i.e. the session. A misbehaving agent must not cost the user the session, and
the user must see that something was dropped: this transport hands only JSON-RPC
objects to the SDK and reports every other line (and every ``session/update`` whose
params do not validate, which the SDK would otherwise swallow) to ``on_malformed``.
Plan entries the SDK would drop one by one without a word (an unknown status, say) are
repaired here instead, with a note the session shows (``mapping.repair_plan_entries``).
A notification of a method that is neither ACP's nor an ``_`` extension (Qwen Code 0.24 sends
``qwen/notify/session/mode-update``) is left out here with a log line: the SDK would log a
"Method not found" traceback for it, which a notebook shows in red under the cell.

A ``session/update`` is validated here once, and the validated ``SessionNotification``
goes to the SDK in place of the raw params: the SDK's own ``model_validate`` returns a
model instance as it is (pydantic's ``revalidate_instances`` is ``"never"``), so a plan
update is not validated twice (measured: the second validation was about a third of the
client's cost per plan update; ``tests/unit/acp/test_acp_transport.py`` checks the pass-through).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from ..errors import CassetteError
from .draft_v2 import DraftV2Frames
from .mapping import MAX_PLAN_ENTRIES, repair_plan_entries
from .unstable_updates import with_capabilities

log = logging.getLogger("codex_nb.acp.transport")

PREVIEW = 200


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW else text[:PREVIEW] + f"... ({len(text)} characters)"


class CheckedTransport:
    """An ``acp`` message transport over an agent's stdout/stdin."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_malformed: Callable[[str], None],
        *,
        limit: int,
        tape: Any = None,
    ) -> None:
        self._reader = reader
        self._tape = tape
        """A cassette recorder (``sent``/``received``) that keeps every line both ways, or None."""
        self._limit = limit
        """The reader's line limit (``StreamReader`` keeps it private), for the report of a longer line."""
        self._writer = writer
        self._on_malformed = on_malformed
        self._lock = asyncio.Lock()
        self.malformed = 0
        self.unread: dict[str, int] = {}
        """Notifications of methods no client reads (neither ACP's nor ``_`` extensions), by method."""
        self._v2 = DraftV2Frames()

    async def send(self, message: dict[str, Any]) -> None:
        message = with_capabilities(message)  # what the SDK's ClientCapabilities cannot carry
        data = (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        async with self._lock:
            if self._tape is not None:
                self._tape.sent(message)
            self._v2.sent(message)
            try:
                self._writer.write(data)
            except CassetteError:
                if "method" in message:
                    raise  # a request: its caller fails with the mismatch
                # an answer to the agent's request: the replay stopped at it, and the prompt fails
                # with that error; the SDK would only log a traceback
                return
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                raw = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as err:
                raw = err.partial
                if not raw.strip():
                    return None
            except asyncio.LimitOverrunError as err:
                await self._reader.readexactly(err.consumed)
                self._report(f"a line longer than the {self._limit} byte limit was dropped")
                continue
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            if self._tape is not None:
                self._tape.received(text)
            problem, message = _check(text, self._v2)
            if problem is not None:
                self._report(f"{problem}: {_preview(text)}")
            elif message is not None and _unread_notification(message):
                self._unread(message["method"])
            else:
                return message

    def _unread(self, method: str) -> None:
        if method not in self.unread and len(self.unread) >= _UNREAD_METHODS:
            method = "(other methods)"  # a hostile agent inventing names cannot grow this without bound
        self.unread[method] = self.unread.get(method, 0) + 1
        if self.unread[method] == 1:
            log.info("the ACP agent sent notification %r, which no ACP client reads; ignored", method[:PREVIEW])

    def _report(self, what: str) -> None:
        self.malformed += 1
        log.warning("ACP agent sent a malformed message (%s); it was ignored", what)
        try:
            self._on_malformed(what)
        except Exception:  # a reporting failure must not end the receive loop  # noqa: BLE001
            log.exception("reporting a malformed ACP message failed")

    async def close(self) -> None:
        if not self._writer.is_closing():
            self._writer.close()


_UNREAD_METHODS = 100


def _unread_notification(message: dict[str, Any]) -> bool:
    from acp.meta import CLIENT_METHODS

    method = message.get("method")
    return (
        "id" not in message
        and isinstance(method, str)
        and not method.startswith("_")
        and method not in CLIENT_METHODS.values()
    )


def _check(text: str, v2: DraftV2Frames) -> tuple[str | None, dict[str, Any] | None]:
    try:
        message = json.loads(text)
    except ValueError as err:
        return f"not JSON ({err})", None
    if not isinstance(message, dict):
        return f"not a JSON-RPC object but a JSON {type(message).__name__}", None
    message = v2.received(message)
    method = message.get("method")
    if method is None:
        if "id" not in message or not ("result" in message or "error" in message):
            return "neither a request, a notification nor a response", None
        return None, message
    if not isinstance(method, str):
        return "its method is not a string", None
    if method == "session/update" and "id" not in message:
        from pydantic import ValidationError

        try:
            message["params"] = _validated(message.get("params"))
        except ValidationError as err:
            first = err.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            return f"session/update with invalid params ({first['msg']} at {where or 'params'})", None
    return None, message


def _validated(params: Any) -> Any:
    """``params`` as a ``SessionNotification``, a plan's entries repaired first where needed."""
    from acp.schema import SessionNotification

    entries = _plan_entries(params)
    if entries is None or len(entries) > MAX_PLAN_ENTRIES:
        if entries is not None:
            params["update"]["entries"] = repair_plan_entries(entries)
        return SessionNotification.model_validate(params)
    notification = SessionNotification.model_validate(params)
    # The SDK drops an entry it cannot validate without a word; an entry was dropped exactly
    # when the counts differ, and only then is the plan repaired (and validated again): the
    # common case checks nothing entry by entry.
    if len(notification.update.entries) != len(entries):
        params["update"]["entries"] = repair_plan_entries(entries)
        notification = SessionNotification.model_validate(params)
    return notification


def _plan_entries(params: Any) -> list[Any] | None:
    update = params.get("update") if isinstance(params, dict) else None
    entries = update.get("entries") if isinstance(update, dict) and update.get("sessionUpdate") == "plan" else None
    return entries if isinstance(entries, list) else None
