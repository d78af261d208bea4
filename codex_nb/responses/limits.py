"""Bounds on everything a Responses-API server sends, and the ``Retry-After`` reading.

A model provider is a peer on the network: it may be broken, hostile or behind a
misconfigured proxy. Each number or size it sends is bounded here, so no header can
stall the event loop and no body can exhaust the kernel's memory. Codex's own client
(``codex-rs``) reads ``Retry-After`` as whole seconds only and sets no upper bound
(``codex-rs/core/src/client.rs`` in the releases that read the header:
``.and_then(|s| s.parse::<u64>().ok())``, anything else falls back to ``backoff``);
codex_nb also reads fractions, ``retry-after-ms`` and HTTP dates, and caps the wait.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from datetime import UTC

MIB = 1024 * 1024
MAX_RETRY_DELAY_SECONDS = 60.0
"""The longest wait before a retry: a larger ``Retry-After`` (or backoff) waits this long."""
MAX_SSE_LINE_BYTES = 8 * MIB
"""One line of the event stream, after decompression."""
MAX_SSE_EVENT_BYTES = 16 * MIB
"""One event (its lines up to the blank line): ``response.completed`` repeats every item."""
MAX_BODY_BYTES = 64 * MIB
"""One whole streamed response, after decompression."""
MAX_ERROR_BODY_BYTES = 1 * MIB
"""The body of a non-2xx answer (it is read whole, for its message)."""
MAX_OUTPUT_ITEMS = 10_000
"""Output items in one response (each may start a tool call)."""
MAX_SUMMARY_PARTS = 10_000
"""Parts of one reasoning summary (a larger ``summary_index`` starts no new section)."""
MAX_PEER_TEXT = 2000
"""Characters of a server's message kept in an error, event or widget."""


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP-date).

    ``None`` when neither says a usable wait: the caller backs off as for any retry.
    A value that is not a finite non-negative number (``nan``, ``inf``, ``-5``, garbage)
    or an HTTP-date is ignored; a date in the past means now; anything longer than
    ``MAX_RETRY_DELAY_SECONDS`` waits that long.
    """
    raw_ms = headers.get("retry-after-ms")
    millis = _seconds(raw_ms) if raw_ms is not None else None
    if millis is not None:
        return clamp_delay(millis / 1000)
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _seconds(raw)
    if seconds is None:
        seconds = _http_date_delay(raw)
    return None if seconds is None else clamp_delay(seconds)


def clamp_delay(seconds: float) -> float:
    """A wait the event loop can schedule: finite, >= 0 and at most the stated maximum."""
    if not math.isfinite(seconds) or seconds < 0:
        return 0.0
    return min(seconds, MAX_RETRY_DELAY_SECONDS)


def clip(text: str, limit: int = MAX_PEER_TEXT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def _seconds(raw: str) -> float | None:
    text = raw.strip()
    if not text or len(text) > 32:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _http_date_delay(raw: str) -> float | None:
    if len(raw) > 64:
        return None
    try:
        when = email.utils.parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": the date is in UTC, its source unknown
        when = when.replace(tzinfo=UTC)
    return max(when.timestamp() - time.time(), 0.0)
