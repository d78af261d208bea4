"""The HTTP client's guards: one origin, and bounded bodies after decompression.

Installed as the SDK client's event hooks (they run for every hop of a redirect chain
and whatever transport or proxy the client picks):

- **One origin.** The openai SDK's client follows redirects, and httpx drops only
  ``Authorization`` when one leaves the origin: the provider's custom and env headers
  (``api-key``, ``OpenAI-Organization``, ...) and, for 307/308, the whole request body
  (the conversation) would go to the other host. A request to any origin but
  ``base_url``'s is refused before it is sent, with an error naming both. Stripping
  instead would still hand the conversation to a host the user never named, and would
  then fail there for want of the key anyway. Same-origin redirects are followed.
- **Bounded bodies.** The response body is decompressed here (gzip and deflate, the
  encodings asked for), in pieces, and counted: a line, an event and the whole body
  of an event stream, and the whole body of an error answer, each have a limit
  (``limits``). Passing it fails the turn with an error naming the limit.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx2

from ..errors import ModelError
from .limits import (
    MAX_BODY_BYTES,
    MAX_ERROR_BODY_BYTES,
    MAX_SSE_EVENT_BYTES,
    MAX_SSE_LINE_BYTES,
    MIB,
)
from .redact import redact

ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 256 * 1024  # decompress at most this much per step
_MAX_ENCODINGS = 3
Hook = Callable[[Any], Awaitable[None]]


def origin_of(url: Any) -> tuple[str, str, int | None]:
    scheme = url.scheme.lower()
    return scheme, (url.host or "").lower(), url.port or {"http": 80, "https": 443}.get(scheme)


def event_hooks(base_url: Any, *, key: str | None) -> dict[str, list[Hook]]:
    """Request and response hooks for a client talking to ``base_url`` (an ``httpx2.URL``)."""
    allowed = origin_of(base_url)

    async def on_request(request: Any) -> None:
        if origin_of(request.url) != allowed:
            raise ModelError(
                f"the model provider redirected the request to another origin ({redact(str(request.url), key)}); "
                f"codex_nb does not follow it, so your API key, provider headers and conversation are not sent "
                f"there. If that is the right server, set base_url to it.",
                info="badRequest",
            )
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING

    async def on_response(response: Any) -> None:
        encodings = [e.strip().lower() for e in response.headers.get_list("content-encoding", split_commas=True)]
        encodings = [e for e in encodings if e and e != "identity"]
        if len(encodings) > _MAX_ENCODINGS or any(e not in ("gzip", "deflate") for e in encodings):
            await response.aclose()
            raise ModelError(
                f"the model provider answered with Content-Encoding {', '.join(encodings)!r}; codex_nb "
                f"asks for and reads only {ACCEPT_ENCODING} (or none)",
                info="badRequest",
            )
        if "content-encoding" in response.headers:
            del response.headers["content-encoding"]  # decoded below: httpx must not decode again
        event_stream = response.headers.get("content-type", "").startswith("text/event-stream")
        response.stream = LimitedStream(
            response.stream,
            encodings,
            status=response.status_code,
            event_stream=event_stream and response.status_code < 300,
        )

    return {"request": [on_request], "response": [on_response]}


class LimitedStream(httpx2.AsyncByteStream):
    """An ``httpx`` async byte stream: the raw body, decompressed in pieces and bounded."""

    def __init__(self, raw: Any, encodings: list[str], *, status: int, event_stream: bool) -> None:
        self._raw = raw
        self._decoders = [_Inflater(encoding) for encoding in reversed(encodings)]
        self._status = status
        self._event_stream = event_stream
        self._limit = MAX_BODY_BYTES if status < 300 else MAX_ERROR_BODY_BYTES
        self.total = 0
        self._line = 0
        self._event = 0
        self._last = b""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._raw:
            for piece in self._decode(chunk, 0):
                self._count(piece)
                yield piece
        for piece in self._flush(0):
            self._count(piece)
            yield piece

    async def aclose(self) -> None:
        await self._raw.aclose()

    def _decode(self, data: bytes, level: int) -> Any:
        if level == len(self._decoders):
            if data:
                yield data
            return
        for piece in self._decoders[level].feed(data):
            yield from self._decode(piece, level + 1)

    def _flush(self, level: int) -> Any:
        if level == len(self._decoders):
            return
        for piece in self._decoders[level].flush():
            yield from self._decode(piece, level + 1)
        yield from self._flush(level + 1)

    def _count(self, piece: bytes) -> None:
        self.total += len(piece)
        if self.total > self._limit:
            what = "streamed response" if self._status < 300 else f"HTTP {self._status} error body"
            raise ModelError(
                f"the model provider sent a {what} over {self._limit // MIB} MiB (after "
                f"decompression), codex_nb's limit; the turn stops so a broken or hostile server "
                f"cannot exhaust memory",
                info="other",
            )
        if self._event_stream:
            self._count_lines(piece)

    def _count_lines(self, piece: bytes) -> None:
        # Lengths since the last line end and the last blank line (SSE ends a line at
        # \n, \r or \r\n; an event at an empty line); measured per piece, so a limit is
        # seen at most one piece late.
        end = max(piece.rfind(b"\n"), piece.rfind(b"\r"))
        self._line = self._line + len(piece) if end < 0 else len(piece) - end - 1
        blank = max(piece.rfind(b"\n\n"), piece.rfind(b"\n\r"), piece.rfind(b"\r\r"))
        if blank >= 0:
            self._event = len(piece) - blank - 2
        elif self._last + piece[:1] in (b"\n\n", b"\n\r", b"\r\r"):  # a blank line across pieces
            self._event = len(piece) - 1
        else:
            self._event += len(piece)
        self._last = piece[-1:]
        if self._line > MAX_SSE_LINE_BYTES:
            raise ModelError(
                f"the model provider sent an event-stream line over {MAX_SSE_LINE_BYTES // MIB} MiB, "
                f"codex_nb's limit for one line; the turn stops so a broken or hostile server cannot "
                f"exhaust memory",
                info="other",
            )
        if self._event > MAX_SSE_EVENT_BYTES:
            raise ModelError(
                f"the model provider sent an event-stream event over {MAX_SSE_EVENT_BYTES // MIB} MiB, "
                f"codex_nb's limit for one event; the turn stops so a broken or hostile server cannot "
                f"exhaust memory",
                info="other",
            )


class _Inflater:
    """gzip or deflate (zlib-wrapped or raw, as servers send both), in bounded pieces."""

    def __init__(self, encoding: str) -> None:
        self._encoding = encoding
        self._raw_fallback = encoding == "deflate"
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Any:
        try:
            out = self._z.decompress(data, _PIECE)
        except zlib.error:
            if not self._raw_fallback:
                raise self._error() from None
            self._raw_fallback = False
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._inflate(data)
        self._raw_fallback = False
        while out:
            yield out
            out = self._inflate(self._z.unconsumed_tail) if self._z.unconsumed_tail else b""

    def flush(self) -> Any:
        while self._z.unconsumed_tail:
            out = self._inflate(self._z.unconsumed_tail)
            if not out:
                break
            yield out
        out = self._z.flush(_PIECE)
        if out:
            yield out

    def _inflate(self, data: bytes) -> bytes:
        try:
            return self._z.decompress(data, _PIECE)
        except zlib.error:
            raise self._error() from None

    def _error(self) -> ModelError:
        return ModelError(
            f"stream disconnected before completion: the {self._encoding} body from the model "
            f"provider does not decompress",
            retryable=True,
            info="other",
        )
