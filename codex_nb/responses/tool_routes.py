"""The provider's own endpoints for the tools Codex leaves to it: ``web.run`` (``alpha/search``)
and ``image_gen.imagegen`` (``images/generations``, ``images/edits``).

``provider_route(config)`` builds the ``backend(path, body)`` those tools call: a JSON POST to
``{base_url}/{path}`` of the config's selected provider, with its headers, query parameters and
key, through the same guards as the model's own requests (one origin, bounded bodies). A
refused request is answered to the model the way Codex answers it (``http STATUS REASON:
Some("BODY")``), never raised into the turn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import CodexNbError
from ..tools.tool_errors import RespondToModel
from ..tools.handlers.seed_tools import Backend
from .limits import MAX_PEER_TEXT
from .provider import ProviderInfo, provider_catalog
from .redact import redact

TIMEOUT_SECONDS = 300.0
"""One request (an image takes minutes); a bound of ours."""


def selected_provider(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ProviderInfo | None:
    """The config's ``model_provider`` from the catalog, or None when it names none that exists."""
    try:
        catalog = provider_catalog(config, environ)
    except CodexNbError:
        return None
    provider_id = config.get("model_provider", "openai")
    return catalog.get(provider_id) if isinstance(provider_id, str) else None


def rust_debug(text: str) -> str:
    """A Rust ``{:?}`` of a string, as Codex prints the body of a refused request."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{out}"'


def provider_route(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Backend | None:
    provider = selected_provider(config, environ)
    if provider is None:
        return None

    async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        return await _post(provider, path, body, environ)

    return post


async def _post(
    provider: ProviderInfo, path: str, body: dict[str, Any], environ: Mapping[str, str] | None
) -> dict[str, Any]:
    import httpx2  # lazy: importing codex_nb must not import the HTTP stack

    from .http_guard import event_hooks

    base_url = provider.resolved_base_url()
    try:
        secret = provider.api_key(environ)
    except CodexNbError as err:
        raise RespondToModel(str(err)) from None
    key = secret.reveal() if secret is not None else None
    headers = {"Content-Type": "application/json", **provider.headers(environ)}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    hooks = event_hooks(httpx2.URL(base_url), key=key)
    try:
        async with httpx2.AsyncClient(event_hooks=hooks, timeout=TIMEOUT_SECONDS) as client:
            response = await client.post(
                f"{base_url}/{path}", content=json.dumps(body), headers=headers, params=provider.query_params or None
            )
            raw = await response.aread()
    except CodexNbError as err:  # the guards: another origin, a body over its bound
        raise RespondToModel(redact(str(err), key)[:MAX_PEER_TEXT]) from None
    except httpx2.HTTPError as err:
        raise RespondToModel(redact(f"{path}: {type(err).__name__}: {err}", key)[:MAX_PEER_TEXT]) from None
    text = raw.decode("utf-8", "replace")
    if response.status_code >= 400:
        shown = redact(text, key)[:MAX_PEER_TEXT]
        raise RespondToModel(f"http {response.status_code} {response.reason_phrase}: Some({rust_debug(shown)})")
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise RespondToModel(f"{path}: the provider's answer is not a JSON object")
    return answer
