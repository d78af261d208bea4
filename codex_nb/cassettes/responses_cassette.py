"""``ResponsesModel(cassette=...)``: a model's HTTP requests recorded once, replayed offline.

Recorded at the HTTP transport seam codex_nb owns (an ``httpx2`` transport given to the
SDK's client), not by vcrpy: vcrpy 9.4 joins a response body into one string before the
client sees any of it (the live turn would stop streaming while it records, and the
replay would lose the stream's chunking), and it patches the transport *classes*
process-wide, so in a notebook kernel it would record or replay every other HTTP client
too. The cassette keeps vcrpy's vocabulary: a request has ``method``, ``uri``, ``body``
(the JSON body as sent) and ``headers``; a response has ``status`` (``code``,
``message``), ``headers`` and ``body.chunks``, the raw bytes in the pieces the server sent
them (text, or ``{"base64": ...}`` for a piece that is not UTF-8 on its own).

Replay hands those chunks to the same client, event hooks (``http_guard``'s limits) and
SSE parser as a live response: no server, no key, no network. A request matches a
recorded one when method, path and body are equal after normalising (``prompt_cache_key``,
uuids, timestamps, the current-time reminder, temp, cwd and home paths); ``none`` and
``once`` never fall back to the network: no match fails the turn with a ``CassetteError``
showing a short diff. Recording scrubs secrets before anything is written.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

from ..errors import CassetteError
from .normalise import normaliser
from .scrub import Scrubber
from .store import Cassette, Played

KIND = "responses"
# Not kept: they change on every run (and say nothing about the conversation), or describe a
# body whose bytes the replay rebuilds (length, transfer coding), or are hop-by-hop.
_DROPPED_RESPONSE_HEADERS = frozenset(
    {"date", "content-length", "transfer-encoding", "connection", "keep-alive", "server", "set-cookie", "alt-svc"}
)
_YIELD_EVERY = 64  # replayed chunks between turns of the event loop (a Stop click gets in)


def validate(interaction: dict[str, Any]) -> str | None:
    """Cheap, for every line at load: the shape's top level (the rest is checked when played)."""
    request, response = interaction.get("request"), interaction.get("response")
    if type(request) is not dict or type(response) is not dict:
        return "a responses interaction needs a 'request' and a 'response' object"
    return None


def open_cassette(path: str | os.PathLike[str], record_mode: Any) -> Cassette:
    return Cassette(path, kind=KIND, record_mode=record_mode, validate=validate)


class Tape:
    """One model's cassette: matching, scrubbing and the interactions a transport plays or records."""

    def __init__(self, cassette: Cassette, *, scrubber: Scrubber, base_url: str) -> None:
        self.cassette = cassette
        self.scrubber = scrubber
        self.normalise = normaliser()
        self._base_path = httpx2.URL(base_url).path.rstrip("/")
        self._keys: dict[int, Any] = {}
        self.broken: tuple[int, str] | None = None
        """The line of the last replayed stream that failed, and how: a request finding no recording
        right after it is a retry of a cut or garbled stream, and that line is what to fix."""

    def transport(self, make_inner: Callable[[], httpx2.AsyncBaseTransport]) -> CassetteTransport:
        return CassetteTransport(self, make_inner)

    # -- matching ------------------------------------------------------------------------------
    def request_record(self, request: httpx2.Request, content: bytes) -> dict[str, Any]:
        """The request as the cassette holds it: scrubbed, the body as JSON when it is JSON."""
        try:
            body: Any = json.loads(content) if content else None
        except ValueError:
            body = content.decode("utf-8", "replace")
        headers = {k: v for k, v in _raw_headers(request.headers) if not _churn(k)}
        return {
            "method": request.method,
            "uri": self.scrubber.text(_scrub_query(str(request.url), self.scrubber)),
            "body": self.scrubber.value(body),
            "headers": self.scrubber.headers(headers),
        }

    def _route(self, uri: str) -> str:
        path = urllib.parse.urlsplit(uri).path
        return path[len(self._base_path) :] if path.startswith(self._base_path) else path

    def _key(self, interaction: dict[str, Any]) -> Any:
        key = self._keys.get(id(interaction))
        if key is None:
            request = interaction["request"]
            key = (request.get("method"), self._route(str(request.get("uri", ""))), self.normalise(request.get("body")))
            self._keys[id(interaction)] = key
        return key

    def find(self, record: dict[str, Any]) -> Played | None:
        if self.cassette.record_mode == "all":
            return None
        wanted = (record["method"], self._route(record["uri"]), self.normalise(record["body"]))
        return self.cassette.play(lambda interaction: self._key(interaction) == wanted)

    def mismatch(self, record: dict[str, Any]) -> Exception:
        if self.broken is not None:
            line, what = self.broken
            return CassetteError(
                f"cassette {self.cassette.path}, line {line}: the recorded response stream is broken ({what}), "
                f"and no recording answers the retry (hand-edited or cut?): restore the line from git or "
                f"re-record with record_mode='all'",
                path=self.cassette.path,
                line=line,
            )
        return self.cassette.mismatch(record["body"], what="request", key=_recorded_body, normalise=self.normalise)

    # -- recording -----------------------------------------------------------------------------
    def response_record(self, response: httpx2.Response, chunks: list[bytes]) -> dict[str, Any]:
        headers: dict[str, list[str]] = {}
        for name, value in _raw_headers(response.headers):
            if name.lower() not in _DROPPED_RESPONSE_HEADERS:
                headers.setdefault(name, []).append(value)
        return {
            "status": {"code": response.status_code, "message": response.reason_phrase},
            "headers": {
                name: ["***"] * len(values)
                if self.scrubber.secret_header(name)
                else [self.scrubber.text(v) for v in values]
                for name, values in headers.items()
            },
            "body": {"chunks": self._chunks(chunks)},
        }

    def _chunks(self, chunks: list[bytes]) -> list[Any]:
        texts: list[str | None] = []
        for chunk in chunks:
            try:
                texts.append(chunk.decode("utf-8"))
            except UnicodeDecodeError:
                texts.append(None)
        out: list[Any] = [
            self.scrubber.text(t) if t is not None else {"base64": base64.b64encode(c).decode("ascii")}
            for t, c in zip(texts, chunks, strict=True)
        ]
        # A secret split across two chunks survives per-chunk scrubbing: then the body is kept
        # as one scrubbed chunk (its chunking is lost, never the secret kept).
        whole = b"".join(chunks).decode("utf-8", "replace")
        joined = "".join(o if isinstance(o, str) else "\ufffd" for o in out)
        if self.scrubber.leaks(joined) or self.scrubber.text(whole) != self.scrubber.text(joined):
            return [self.scrubber.text(whole)]
        return out

    async def record(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        await self.cassette.arecord({"request": request, "response": response})


class CassetteTransport(httpx2.AsyncBaseTransport):
    """Plays a recorded response, or (when the cassette records) sends the request and tapes the answer."""

    def __init__(self, tape: Tape, make_inner: Callable[[], httpx2.AsyncBaseTransport]) -> None:
        self._tape = tape
        self._make_inner = make_inner
        self._inner: httpx2.AsyncBaseTransport | None = None
        self._open: list[_RecordingStream] = []
        self._played: Played | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        tape = self._tape
        content = await request.aread()
        record = tape.request_record(request, content)
        played = tape.find(record)
        if played is not None:
            tape.broken = None
            self._played = played
            return _replayed(played, request, tape.cassette)
        if not tape.cassette.recording:
            raise tape.mismatch(record)
        if self._inner is None:
            self._inner = self._make_inner()
        # The cassette keeps the stream as the server sent it: uncompressed, readable in review.
        request.headers["Accept-Encoding"] = "identity"
        record["headers"] = {
            k: ("identity" if k.lower() == "accept-encoding" else v) for k, v in record["headers"].items()
        }
        response = await self._inner.handle_async_request(request)
        stream = _RecordingStream(
            response.stream, lambda chunks: tape.record(record, tape.response_record(response, chunks))
        )
        self._open.append(stream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    def finish(self) -> None:
        """The model read the response to its end (``response.completed``, or a failure it reported):
        record it when it closes, even if the server had not closed the stream yet."""
        for stream in self._open:
            stream.finished = True

    def failed(self, what: str) -> None:
        """The stream read from here failed (``what``): if it was replayed, the tape remembers its line."""
        if self._played is not None:
            self._tape.broken = (self._played.line, what)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


class _RecordingStream(httpx2.AsyncByteStream):
    """The live body, passed through as it arrives, taped, and recorded when closed after its end."""

    def __init__(self, raw: Any, on_done: Callable[[list[bytes]], Any]) -> None:
        self._raw = raw
        self._on_done = on_done
        self._chunks: list[bytes] = []
        self.finished = False
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._raw:
            self._chunks.append(chunk)
            yield chunk
        self.finished = True

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._raw.aclose()
        if self.finished:  # an interrupted or stalled stream is not recorded: replaying it would fail
            await self._on_done(self._chunks)


class _ReplayStream(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for index, chunk in enumerate(self._chunks):
            if index and not index % _YIELD_EVERY:
                await asyncio.sleep(0)
            yield chunk


def _replayed(played: Played, request: httpx2.Request, cassette: Cassette) -> httpx2.Response:
    response = played.interaction["response"]
    try:
        status = response["status"]["code"]
        headers = [(str(k), str(v)) for k, values in response.get("headers", {}).items() for v in _values(k, values)]
        chunks = [_chunk(c) for c in response["body"]["chunks"]]
        if not isinstance(status, int) or not 100 <= status <= 599:
            raise ValueError(f"status {status!r}")
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CassetteError(
            f"cassette {cassette.path}, line {played.line}: the recorded response is malformed ({err}; "
            f"hand-edited?): restore the line from git or re-record with record_mode='all'",
            path=cassette.path,
            line=played.line,
        ) from None
    return httpx2.Response(status_code=status, headers=headers, stream=_ReplayStream(chunks), request=request)


def _churn(name: str) -> bool:
    """Request headers left out: the SDK's per-run telemetry (retry count, runtime) and the body's length."""
    lower = name.lower()
    return lower.startswith("x-stainless-") or lower == "content-length"


def _raw_headers(headers: httpx2.Headers) -> list[tuple[str, str]]:
    """Names as sent (httpx lower-cases them elsewhere), as vcrpy's cassettes keep them."""
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers.raw]


def _values(name: str, values: Any) -> list[Any]:
    if not isinstance(values, list):
        raise TypeError(f"header {name!r} must hold a list of values, got {type(values).__name__}")
    return values


def _recorded_body(interaction: dict[str, Any]) -> Any:
    request = interaction.get("request")
    return request.get("body") if isinstance(request, dict) else None


def _chunk(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and isinstance(value.get("base64"), str):
        return base64.b64decode(value["base64"], validate=True)
    raise TypeError(f"a body chunk must be text or {{'base64': ...}}, got {type(value).__name__}")


def _scrub_query(uri: str, scrubber: Scrubber) -> str:
    parts = urllib.parse.urlsplit(uri)
    if not parts.query:
        return uri
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query = urllib.parse.urlencode([(k, "***" if scrubber.secret_header(k) else v) for k, v in pairs])
    return urllib.parse.urlunsplit(parts._replace(query=query))


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (the recording transport honours it as the SDK would)."""
    parts = urllib.parse.urlsplit(url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")
