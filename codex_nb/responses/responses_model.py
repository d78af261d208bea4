"""``ResponsesModel``: a real model behind the Responses API, on the official ``openai`` SDK.

It streams (``stream(request)``: the turn loop dispatches each tool call as its item
completes and publishes text deltas as they arrive) and can also just ``sample``.
Failures follow Codex (``codex-rs/core/src/client.rs``, ``codex-api``): 5xx and
transport errors are retried ``request_max_retries`` times with Codex's backoff (200 ms
doubling, +-10 % jitter); a dropped, stalled (``stream_idle_timeout_ms``), malformed or
failed stream, a 429 (after its ``Retry-After``) and an exhausted request retry are
retried ``stream_max_retries`` times, each announced with a ``stream_error`` event
``Reconnecting... n/m``; then the turn fails with the last error. 401/403 and other 4xx
fail at once with a message naming the key to set. The API key lives in a ``Secret``:
it is never in a repr, an event, a log line or an error message, and every error made
from the server's text is redacted (``redact``). Every size and number the server sends
is bounded (``limits``, ``http_guard``); a redirect to another origin is refused.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import CassetteError, ConfigError, ModelError
from ..protocol.model_stream import (
    ModelStreamEvent,
    OutputItemDone,
    ResponseCompleted,
    StreamError,
    TokenUsage,
)
from ..cassettes.scrub import Scrubber, check_filters
from .limits import MAX_PEER_TEXT, clamp_delay, clip, retry_after
from .provider import (
    REASONING_EFFORTS,
    REASONING_SUMMARIES,
    ProviderInfo,
    Secret,
    builtin_providers,
    check_choice,
    provider_catalog,
)
from .redact import redact
from .request import build_body, reasoning_param
from .stream import StreamMapper

if TYPE_CHECKING:
    from ..cassettes.store import Cassette
    from ..cassettes.responses_cassette import Tape

INITIAL_DELAY_SECONDS = 0.2
INSTALL_HINT = (
    "cx.ResponsesModel needs the openai package: install the model extra with "
    "pip install -e '.[model]' from a codex_nb checkout, or pip install 'codex_nb[model]' from a release"
)
_STATUS_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def backoff(attempt: int) -> float:
    """Codex's retry delay for attempt 1, 2, ...: 200 ms doubling, with +-10 % jitter.

    Capped at ``MAX_RETRY_DELAY_SECONDS`` (from the 10th attempt): Codex's has no cap, so
    its 100th stream retry would wait 10^29 seconds.
    """
    return clamp_delay(INITIAL_DELAY_SECONDS * 2 ** min(max(attempt - 1, 0), 16) * random.uniform(0.9, 1.1))


class ResponsesModel:
    """A Responses-API model: ``cx.ResponsesModel(model=..., base_url=..., api_key=...)``.

    Give ``api_key`` directly, or ``env_key`` (the environment variable holding it; the
    built-in ``openai`` provider reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``), or build
    it from Codex's config with :meth:`from_config`. Use it wherever ``ScriptedModel`` goes:
    ``session.start_turn(text, model=model)``. ``await model.aclose()`` releases its HTTP
    connections (a session's ``aclose()`` does not own the model).

    ``cassette="turns.cassette.jsonl"`` records the model's requests and raw responses to a
    file, then replays them offline (no server, no key, no network) for documentation tests;
    ``record_mode`` is vcrpy's (``once``: record a missing file, else replay only; ``none``,
    ``new_episodes``, ``all``); ``cassette_filters`` masks more text before it is written
    (strings, compiled regexes or ``str -> str`` functions). Secrets are always scrubbed.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        env_key: str | None = None,
        provider: ProviderInfo | str | None = None,
        reasoning_effort: str | None = None,
        reasoning_summary: str | None = None,
        instructions: str | None = None,
        model_context_window: int | None = None,
        request_max_retries: int | None = None,
        stream_max_retries: int | None = None,
        stream_idle_timeout_ms: int | None = None,
        http_headers: Mapping[str, str] | None = None,
        query_params: Mapping[str, str] | None = None,
        reasoning: bool = True,
        cassette: str | os.PathLike[str] | None = None,
        record_mode: str = "once",
        cassette_filters: Any = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(
                "ResponsesModel needs model='<model name>' (for example model='gpt-5.1-codex', or the "
                "name your local server serves)"
            )
        info = _provider(provider, base_url=base_url, env_key=env_key)
        overrides: dict[str, Any] = {
            key: value
            for key, value in (
                ("request_max_retries", request_max_retries),
                ("stream_max_retries", stream_max_retries),
                ("stream_idle_timeout_ms", stream_idle_timeout_ms),
            )
            if value is not None
        }
        for key, value in overrides.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < (1 if key.endswith("_ms") else 0):
                raise ConfigError(f"{key} must be a non-negative integer, got {value!r}")
        if http_headers:
            overrides["http_headers"] = {**info.http_headers, **dict(http_headers)}
        if query_params:
            overrides["query_params"] = {**info.query_params, **dict(query_params)}
        self.provider = _replace(info, **overrides)
        self.model = model
        self.reasoning_effort = check_choice(reasoning_effort, REASONING_EFFORTS, "model_reasoning_effort")
        self.reasoning_summary = check_choice(reasoning_summary, REASONING_SUMMARIES, "model_reasoning_summary")
        self.reasoning = bool(reasoning)
        self.instructions = instructions
        self.model_context_window = model_context_window
        if api_key is not None and not isinstance(api_key, str):
            raise ConfigError(f"api_key must be a string, got {type(api_key).__name__}")
        self.cassette: Cassette | None = None
        """The cassette this model records to or replays from (``cassette=``), else ``None``."""
        filters = check_filters(cassette_filters)
        if cassette is not None:
            _openai()  # the transport a cassette plays through is the SDK's client's: say how to install it
            from ..cassettes.responses_cassette import open_cassette

            self.cassette = open_cassette(cassette, record_mode)
        elif record_mode != "once" or cassette_filters is not None:
            raise ConfigError("record_mode= and cassette_filters= need cassette='<file>.cassette.jsonl'")
        self._api_key: Secret | None = Secret(api_key) if api_key else self._provider_key()
        self._key_source = "(passed in)" if api_key else _key_source(self.provider)
        self._tape: Tape | None = None
        if self.cassette is not None:
            from ..cassettes.responses_cassette import Tape

            base_url = self.provider.resolved_base_url()
            self._tape = Tape(self.cassette, scrubber=self._scrubber(filters), base_url=base_url)
        self.last_request: dict[str, Any] | None = None
        """The body of the latest request sent (for inspection in notebooks and tests)."""
        self.last_usage: TokenUsage | None = None

    def _provider_key(self) -> Secret | None:
        """The provider's key; a cassette that only replays needs none (nothing goes to the network)."""
        try:
            return self.provider.api_key()
        except ConfigError:
            if self.cassette is not None and not self.cassette.recording:
                return None
            raise

    def _scrubber(self, filters: list[Any]) -> Scrubber:
        """Everything secret this model knows, masked in what its cassette writes."""
        provider = self.provider
        env_vars = [provider.key_env_var, "OPENAI_API_KEY", *provider.env_http_headers.values()]
        secrets = [self._api_key.reveal() if self._api_key is not None else None]
        secrets += [os.environ.get(var) for var in env_vars if var]
        if provider.experimental_bearer_token is not None:
            secrets.append(provider.experimental_bearer_token.reveal())
        scrub_names = Scrubber(headers=provider.env_http_headers)
        secrets += [value for name, value in provider.http_headers.items() if scrub_names.secret_header(name)]
        return Scrubber(secrets=secrets, headers=provider.env_http_headers, filters=filters)

    # -- construction from Codex config ----------------------------------------------------
    @classmethod
    def from_config(
        cls, config: Any, *, profile: str | None = None, environ: Mapping[str, str] | None = None, **overrides: Any
    ) -> ResponsesModel:
        """Build from Codex ``config.toml`` keys: a ``cx.Config``, TOML text or a parsed dict.

        Reads ``model``, ``model_provider`` (default ``openai``), ``[model_providers.NAME]``,
        ``model_reasoning_effort``, ``model_reasoning_summary``, ``model_context_window`` and,
        with ``profile=``, the overrides in ``[profiles.NAME]``. Keyword ``overrides`` win.
        """
        data = _config_dict(config)
        if profile is not None:
            profiles = data.get("profiles", {})
            if not isinstance(profiles, dict) or not isinstance(profiles.get(profile), dict):
                raise ConfigError(f"profile {profile!r} not found: add a [profiles.{profile}] table")
            data = {**data, **profiles[profile]}
        catalog = provider_catalog(data, environ)
        provider_id = data.get("model_provider", "openai")
        if provider_id not in catalog:
            raise ConfigError(
                f"model_provider {provider_id!r} is not defined: add a [model_providers.{provider_id}] "
                f'table with base_url = "..." (known providers: {", ".join(sorted(catalog))})'
            )
        provider = catalog[provider_id]
        source = None
        if environ is not None and "api_key" not in overrides:
            overrides["api_key"] = (provider.api_key(environ) or Secret("")).reveal() or None
            source = _key_source(provider, environ)
        if "model" not in data and "model" not in overrides:
            raise ConfigError('the config sets no model: add model = "<model name>" to config.toml or pass model=...')
        kwargs: dict[str, Any] = {
            "model": data.get("model"),
            "provider": provider,
            "reasoning_effort": data.get("model_reasoning_effort"),
            "reasoning_summary": data.get("model_reasoning_summary"),
            "model_context_window": data.get("model_context_window"),
        }
        kwargs.update(overrides)
        model = cls(**kwargs)
        if source is not None:
            model._key_source = source
        return model

    # -- the Model protocol --------------------------------------------------------------
    def request_body(self, request: Any) -> dict[str, Any]:
        """The JSON body this model sends for ``request`` (a ``ModelRequest``)."""
        reasoning = reasoning_param(self.reasoning_effort, self.reasoning_summary) if self.reasoning else None
        return build_body(
            model=self.model,
            items=list(request.items),
            tools=list(request.tools),
            parallel_tool_calls=bool(getattr(request, "parallel_tool_calls", True)),
            reasoning=reasoning,
            prompt_cache_key=getattr(request, "thread_id", None) or None,
            instructions=self.instructions,
        )

    async def sample(self, request: Any) -> list[dict[str, Any]]:
        """All output items of one response (no streaming events; see ``stream``)."""
        return [event.item async for event in self.stream(request) if isinstance(event, OutputItemDone)]

    async def stream(self, request: Any) -> AsyncIterator[ModelStreamEvent]:
        """Stream one response: events and completed items, retried as Codex retries."""
        body = self.request_body(request)
        self.last_request = body
        limit = self.provider.effective_stream_max_retries
        retries = 0
        while True:
            # One generator for the whole path (no nested async generators): every layer
            # would cost each of thousands of deltas another resume.
            taped = None if self._tape is None else self._tape.transport(self._recording_transport)
            client = self._new_client(taped)
            stream = watchdog = None
            try:
                stream = await self._open(client, body)
                mapper = StreamMapper()
                iterator = stream.__aiter__()
                watchdog = _IdleWatchdog(self.provider.stream_idle_timeout)
                while not mapper.completed:
                    event = await self._next_event(iterator, watchdog)
                    try:
                        outs = mapper.feed(event)
                    except ModelError:
                        if taped is not None:
                            taped.finish()  # the server's own failure: a faithful recording
                        raise
                    for out in outs:
                        if isinstance(out, ResponseCompleted):
                            self.last_usage = out.usage
                        yield out
                if taped is not None:
                    taped.finish()
                return
            except ModelError as err:
                self._scrub(err)  # the one way out for every error: no key, no unbounded text
                if taped is not None and stream is not None and err.retryable:
                    taped.failed(err.message)  # a replayed stream that broke: named if the retry finds nothing
                if not err.retryable or retries >= limit:
                    raise
                retries += 1
                error = err
            finally:
                if watchdog is not None:
                    watchdog.close()
                if stream is not None:
                    await stream.close()  # at once, also when the turn is interrupted
                await client.close()  # no connection outlives its response
            yield StreamError(
                message=f"Reconnecting... {retries}/{limit}",
                codex_error_info=error.info,
                additional_details=error.message,
            )
            await asyncio.sleep(clamp_delay(error.delay) if error.delay is not None else backoff(retries))

    async def _next_event(self, iterator: Any, watchdog: _IdleWatchdog) -> Any:
        """The next stream event; a drop, stall, bad JSON or transport error is a retryable ModelError."""
        try:
            watchdog.arm()
            event = await iterator.__anext__()
            watchdog.disarm()
            return event
        except StopAsyncIteration:
            raise ModelError(
                "stream disconnected before completion: stream closed before response.completed", retryable=True
            ) from None
        except asyncio.CancelledError:
            if not watchdog.fired:
                raise  # an interrupt, not a stall
            watchdog.acknowledge()
            raise ModelError(
                "stream disconnected before completion: idle timeout waiting for SSE", retryable=True
            ) from None
        except json.JSONDecodeError as err:
            raise ModelError(
                f"stream disconnected before completion: malformed event from the model provider "
                f"(not JSON: {err.msg} at char {err.pos})",
                retryable=True,
            ) from None
        except (ModelError, CassetteError):
            raise
        except Exception as err:  # transport errors the SDK raises mid-stream
            raise self._transport_error(err, "stream disconnected before completion") from None

    async def _open(self, client: Any, body: dict[str, Any]) -> Any:
        """POST the request; retry 5xx/transport errors ``request_max_retries`` times."""
        limit = self.provider.effective_request_max_retries
        openai = _openai()
        AsyncStream, Response = openai.AsyncStream, openai.types.responses.Response

        # The client's own POST, not responses.create(): the body goes out in Codex's key
        # order, and the SDK's AsyncStream hands back each event as the server's JSON
        # object, so items return to the next request exactly as the model sent them.
        options: dict[str, Any] = {} if self._api_key is not None else {"headers": {"Authorization": _omit()}}
        attempt = 0
        while True:
            try:
                return await client.post(
                    "/responses",
                    cast_to=Response,
                    body=body,
                    options=options,
                    stream=True,
                    stream_cls=AsyncStream[object],
                )
            except (ModelError, CassetteError):
                raise  # the client's guards (a refused redirect, a body over its limit); a cassette's verdict
            except Exception as err:
                error = self._status_error(err)
                if error is None:
                    error = self._transport_error(err, "request failed")
                elif not error.retryable:
                    raise error from None
                if error.delay is not None or attempt >= limit:
                    raise error from None  # 429 and an exhausted budget go to the stream-level retry
                attempt += 1
                await asyncio.sleep(backoff(attempt))

    # -- errors ----------------------------------------------------------------------------
    def _status_error(self, err: Exception) -> ModelError | None:
        openai = _openai()
        if not isinstance(err, openai.APIStatusError):
            return None
        status = err.status_code
        reason = _STATUS_REASONS.get(status, "")
        detail = self._redact(_server_message(err))
        url = self._redact(str(err.response.request.url))
        if status in (401, 403):
            var = self.provider.key_env_var
            named = "" if self.provider.id == "custom" else f" for {self.provider.name or self.provider.id}"
            fix = (
                f"set {var} to a valid API key{named}"
                if var
                else "pass api_key=... to cx.ResponsesModel, or set env_key in the provider config"
            )
            return ModelError(
                f"unexpected status {status} {reason}: {detail}, url: {url}. To fix: {fix}.", info="unauthorized"
            )
        if status == 429:
            delay = retry_after(err.response.headers)
            return ModelError(
                f"exceeded retry limit, last status: {status} {reason}: {detail}",
                retryable=True,
                delay=backoff(1) if delay is None else delay,
                info="rateLimitExceeded",
            )
        if status >= 500 or status == 408:
            return ModelError(
                f"exceeded retry limit, last status: {status} {reason}: {detail}",
                retryable=True,
                info="internalServerError" if status == 500 else "serverOverloaded",
            )
        return ModelError(f"unexpected status {status} {reason}: {detail}, url: {url}", info="badRequest")

    def _transport_error(self, err: Exception, what: str) -> ModelError:
        cause = err.__cause__ or err
        text = self._redact(str(cause) or type(cause).__name__)
        return ModelError(
            f"{what}: {type(cause).__name__}: {text} ({self.provider.resolved_base_url()})",
            retryable=True,
            info="httpConnectionFailed",
        )

    def _redact(self, text: str) -> str:
        return redact(text, self._api_key.reveal() if self._api_key is not None else None)

    def _scrub(self, err: ModelError) -> None:
        """Redact and bound the message of an error on its way out (``result.error``, events, widgets)."""
        text = clip(self._redact(err.message), 2 * MAX_PEER_TEXT)
        err.message = text
        err.args = (text,)

    # -- the SDK client, one per request ----------------------------------------------------
    def _new_client(self, transport: Any = None) -> Any:
        """A fresh client for one request: no pooled connection outlives its response, so an
        interrupted or abandoned turn leaves no socket behind, whatever loop it ran on.
        ``transport`` is the cassette's, when there is one."""
        openai = _openai()  # lazy: importing codex_nb must not import the SDK
        import httpx2

        from .http_guard import event_hooks

        base_url = self.provider.resolved_base_url()
        key = self._api_key.reveal() if self._api_key is not None else None
        hooks = event_hooks(httpx2.URL(base_url), key=key)
        return openai.AsyncOpenAI(
            api_key=key or "no-key-configured",
            base_url=base_url,
            max_retries=0,
            timeout=self.provider.stream_idle_timeout,
            default_headers=self.provider.headers() or None,
            default_query=self.provider.query_params or None,
            organization=None,
            project=None,
            http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context(), event_hooks=hooks, transport=transport),
        )

    def _recording_transport(self) -> Any:
        """The network transport behind a recording cassette (only ever built when it records)."""
        import httpx2

        from ..cassettes.responses_cassette import env_proxy

        return httpx2.AsyncHTTPTransport(verify=_ssl_context(), proxy=env_proxy(self.provider.resolved_base_url()))

    async def aclose(self) -> None:
        """Nothing to release: every request closes its own connection (kept for symmetry)."""

    def __repr__(self) -> str:
        key = "none" if self._api_key is None else f"set {self._key_source}"
        tape = (
            ""
            if self.cassette is None
            else f", cassette={str(self.cassette.path)!r}, record_mode={self.cassette.record_mode!r}"
        )
        return (
            f"ResponsesModel(model={self.model!r}, provider={self.provider.id!r}, "
            f"base_url={self.provider.resolved_base_url()!r}, api_key={key}{tape})"
        )

    def __reduce__(self) -> Any:
        raise TypeError("a ResponsesModel holds an API key and cannot be pickled; build a new one where needed")


class _IdleWatchdog:
    """``stream_idle_timeout_ms`` between stream events, with one timer per idle period.

    ``asyncio.timeout`` around every event would schedule (and cancel) a timer per
    delta; cancelled timers linger in the loop's heap, so a 10,000-delta answer would hold
    thousands. This keeps one timer that re-arms itself from the time of the last event,
    and cancels the waiting task only while it waits for the next event.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.fired = False
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._waiting_since: float | None = None
        self._handle: asyncio.TimerHandle | None = None

    def arm(self) -> None:
        self._waiting_since = self._loop.time()
        if self._handle is None:
            self._handle = self._loop.call_later(self.timeout, self._check)

    def disarm(self) -> None:
        self._waiting_since = None

    def _check(self) -> None:
        self._handle = None
        if self._waiting_since is None:
            return  # not waiting (the consumer has the event): arm() starts a new period
        remaining = self._waiting_since + self.timeout - self._loop.time()
        if remaining > 0:
            self._handle = self._loop.call_later(remaining, self._check)
        elif self._task is not None:
            self.fired = True
            self._task.cancel("stream idle timeout")

    def acknowledge(self) -> None:
        """Turn our own cancellation into the timeout error (the task goes on)."""
        if self._task is not None:
            self._task.uncancel()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every client (building one costs ~50 ms: the CA bundle is parsed)."""
    try:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    except ImportError:
        return ssl.create_default_context()


def _omit() -> Any:
    return _openai().Omit()


def _openai() -> Any:
    """The openai SDK, or a ModelError that says how to install it (the turn fails with it)."""
    try:
        import openai
        import openai.types.responses
    except ImportError as err:
        detail = "" if isinstance(err, ModuleNotFoundError) and err.name == "openai" else f" ({err})"
        raise ModelError(f"{INSTALL_HINT}{detail}") from None
    return openai


def _key_source(provider: ProviderInfo, environ: Mapping[str, str] | None = None) -> str:
    """Where ``provider.api_key(environ)`` found its key, for the repr."""
    import os

    var = provider.key_env_var
    if var is not None and (os.environ if environ is None else environ).get(var, "").strip():
        return f"from {var}"
    return "from experimental_bearer_token"


def _server_message(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        for holder in (body.get("error", body), body):  # OpenAI's {"error": {"message": ...}}, then a flat one
            message = holder.get("message") if isinstance(holder, dict) else None
            if isinstance(message, str):
                return message[:2000]
    if isinstance(body, str) and body:
        return body[:2000]
    try:
        return err.response.text[:2000] or "(empty body)"
    except Exception:  # a streamed body that cannot be read any more
        return "(no body)"


def _provider(provider: ProviderInfo | str | None, *, base_url: str | None, env_key: str | None) -> ProviderInfo:
    if isinstance(provider, ProviderInfo):
        info = provider
    elif isinstance(provider, str):
        builtins = builtin_providers()
        if provider not in builtins:
            raise ConfigError(
                f"provider {provider!r} is not built in (built in: {', '.join(sorted(builtins))}); "
                f"pass base_url=... instead, or use ResponsesModel.from_config for your own providers"
            )
        info = builtins[provider]
    elif base_url is not None:
        info = ProviderInfo(id="custom", name="custom", base_url=base_url)
    else:
        info = builtin_providers()["openai"]
    if base_url is not None:
        info = _replace(info, base_url=base_url)
    if env_key is not None:
        info = _replace(info, env_key=env_key)
    return info


def _replace(info: ProviderInfo, **changes: Any) -> ProviderInfo:
    import dataclasses

    return dataclasses.replace(info, **changes) if changes else info


def _config_dict(config: Any) -> dict[str, Any]:
    if isinstance(config, dict):
        return config
    if isinstance(config, str):
        import tomllib

        try:
            return tomllib.loads(config)
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"config TOML does not parse: {err}") from None
    extra = getattr(config, "extra", None)
    if isinstance(extra, dict):
        return extra
    raise ConfigError(f"from_config() takes a cx.Config, config.toml text or a dict; got {type(config).__name__}")
