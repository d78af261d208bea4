"""What ``web.run`` and ``image_gen.imagegen`` share: the specs recorded from the binary, the
provider facts their gates read, and the handler a person may give in place of the provider.

The two specs live in ``seed_tool_specs.json``, copied byte for byte from the first request
body the pinned Codex sends with each tool's gates open (the conformance scenarios
``seed_*`` record and check them), so no description is retyped here.

Both gates read the raw ``config.toml`` (``Config.extra``): the selected provider's table
decides whether Codex declares the tool at all, before any model is asked.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tool_errors import RespondToModel

if TYPE_CHECKING:
    from ...config import Config

SPECS_FILE = Path(__file__).with_name("seed_tool_specs.json")
ACTOR_AUTHORIZATION_HEADER = "x-openai-actor-authorization"
MAX_HANDLER_TEXT = 1024 * 1024
"""Characters of a handler's or provider's answer given to the model (a bound of ours; Codex sets none)."""

Handler = Callable[[dict[str, Any]], Any]
"""``handler(request) -> str`` (or an awaitable of one): the request is the JSON body Codex
would POST to the provider, so a handler can forward it, answer it, or refuse it."""


@cache
def recorded_specs() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPECS_FILE.read_text(encoding="utf-8"))
    return loaded


def raw_config(config: Config) -> dict[str, Any]:
    return config.extra if isinstance(config.extra, dict) else {}


def feature_on(config: Config, name: str, *, default: bool) -> bool:
    """``[features] NAME = true`` or ``[features.NAME] enabled = true``; anything else is ``default``."""
    features = raw_config(config).get("features", {})
    value = features.get(name, default) if isinstance(features, dict) else default
    if isinstance(value, dict):
        value = value.get("enabled", default)
    return value if isinstance(value, bool) else default


def provider_table(config: Config) -> dict[str, Any]:
    """The selected ``[model_providers.ID]`` table (empty for a built-in provider or none)."""
    data = raw_config(config)
    provider_id = data.get("model_provider", "openai")
    tables = data.get("model_providers", {})
    table = tables.get(provider_id) if isinstance(tables, dict) and isinstance(provider_id, str) else None
    return table if isinstance(table, dict) else {}


def uses_actor_authorization(table: Mapping[str, Any]) -> bool:
    """A provider that authorises by ``x-openai-actor-authorization`` and not by an OpenAI login
    (observed with 0.171: a literal ``http_headers`` entry counts, ``requires_openai_auth`` vetoes)."""
    if table.get("requires_openai_auth") is True:
        return False
    headers = table.get("http_headers", {})
    if not isinstance(headers, dict):
        return False
    return any(str(k).lower() == ACTOR_AUTHORIZATION_HEADER for k in headers)


def web_run_enabled(config: Config) -> bool:
    """``web.run``'s gate, as the pinned binary decides it (see ``handlers.web_run``). Here, not
    there, so a session whose config leaves the tool out never imports its handler."""
    return (
        feature_on(config, "standalone_web_search", default=False)
        and provider_table(config).get("supports_standalone_web_search") is True
        and config.web_search != "disabled"
    )


def image_gen_enabled(config: Config) -> bool:
    """``image_gen.imagegen``'s gate for a Responses provider (see ``handlers.image_gen``); here for
    the same reason as ``web_run_enabled``."""
    return feature_on(config, "image_generation", default=True) and uses_actor_authorization(provider_table(config))


async def call_handler(handler: Handler, request: dict[str, Any], what: str) -> Any:
    """Run a person's handler; its failure becomes the model's output, named. A plain function runs
    in a worker thread, so one that waits on the network does not stall the kernel's event loop."""
    try:
        if inspect.iscoroutinefunction(handler):
            result = await handler(request)
        else:
            result = await asyncio.to_thread(handler, request)
        if inspect.isawaitable(result):
            result = await result
    except RespondToModel:
        raise
    except Exception as err:  # noqa: BLE001 - the handler is the user's code: its error goes to the model
        raise RespondToModel(f"{what} handler failed: {type(err).__name__}: {err}") from None
    return result


def bounded_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise RespondToModel(f"{what} must return text (str), got {type(value).__name__}")
    return value[:MAX_HANDLER_TEXT]


Backend = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""The provider route a runtime wires in: ``backend(path, body)`` POSTs the body to
``{base_url}/{path}`` and returns the JSON answer (a failure raises ``RespondToModel``)."""
