"""``web.run``: Codex's standalone web search, a function tool the provider answers.

Gate, as the pinned binary (0.171) decides it for the ``tools`` of a request:
``[features] standalone_web_search = true``, the selected provider's table says
``supports_standalone_web_search = true``, and ``web_search`` is not ``"disabled"``. When it
is declared, the hosted ``web_search`` is not (``web.run`` replaces it). The spec is the
binary's, byte for byte (``seed_tool_specs.json``).

A call goes where Codex sends it: ``POST {base_url}/alpha/search`` on the provider, with
the body Codex builds (``search_request``); the answer's ``output`` text becomes the
call's output. A person may give a ``handler`` instead (``session.set_handler("web.run", handler)``): it
receives the same body and returns the text, e.g. for a search service of their own or
a recorded answer. Without either (no provider route was wired) the call fails with a
message saying what to do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.serde import SerdeError
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from .web_run_commands import read_commands
from .web_search import CATALOG_TEXT_AND_IMAGE
from .seed_tools import Backend, Handler, bounded_text, call_handler, recorded_specs
from .seed_tools import web_run_enabled as web_run_enabled  # the gate lives with the light shared part

if TYPE_CHECKING:
    from ...config import Config

NAMESPACE = "web"
NAME = "run"
SEARCH_PATH = "alpha/search"
MAX_OUTPUT_TOKENS = 10_000
"""A catalog model's output budget (its truncation policy: 10000 tokens)."""
DEFAULT_MAX_OUTPUT_TOKENS = 2_500
"""Any other model's (observed with the pinned binary for a model outside its catalog)."""
NO_ROUTE = (
    "web.run has no route: this session has no provider to send the search to; give it a handler "
    "(session.set_handler('web.run', handler)) or use a Responses provider whose table says supports_standalone_web_search = true"
)


def web_run_tools(config: Config) -> list[Tool]:
    return [WebRunTool(external_web_access=config.web_search in ("live", "indexed"))] if web_run_enabled(config) else []


def user_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The person's own messages, the only history Codex puts in a search request."""
    out = []
    for item in history:
        if item.get("type") != "message" or item.get("role") != "user":
            continue
        content = item.get("content")
        parts = content if isinstance(content, list) else []
        text = next((p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "input_text"), "")
        if isinstance(text, str) and text.lstrip().startswith("<"):  # contextual fragments (<turn_aborted> ...)
            continue
        out.append({"type": "message", "role": "user", "content": parts})
    return out


class WebRunTool(Tool):
    """``web.run``: commands (``search_query``, ``open``, ``find`` ...) answered by the provider or a handler."""

    def __init__(self, *, external_web_access: bool = False, handler: Handler | None = None) -> None:
        specs = recorded_specs()["web"]
        super().__init__(NAME, namespace=NAMESPACE, namespace_description=specs["namespace_description"])
        self.external_web_access = external_web_access
        self.handler = handler
        """``handler(request) -> str``: answers instead of the provider."""
        self.backend: Backend | None = None
        """The provider route (``POST alpha/search``), wired by the runtime from the config."""

    def spec(self) -> dict[str, Any]:
        return dict(recorded_specs()["web"]["tool"])

    def search_request(self, commands: dict[str, Any], invocation: ToolInvocation) -> dict[str, Any]:
        """The body Codex POSTs to ``alpha/search`` (its key order)."""
        turn = invocation.turn
        return {
            "id": turn.thread_id,
            "model": turn.model_slug,
            "input": user_messages(turn.history or []),
            "commands": commands,
            "settings": {"allowed_callers": ["direct"], "external_web_access": self.external_web_access},
            "max_output_tokens": MAX_OUTPUT_TOKENS
            if turn.model_slug in CATALOG_TEXT_AND_IMAGE
            else DEFAULT_MAX_OUTPUT_TOKENS,
        }

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        try:
            commands = read_commands(invocation.payload_text)
        except SerdeError as err:  # serde_json's own text, as Codex answers it
            raise RespondToModel(str(err)) from None
        request = self.search_request(commands, invocation)
        if self.handler is not None:
            text = bounded_text(await call_handler(self.handler, request, "web.run"), "the web.run handler")
        elif self.backend is not None:
            answer = await self.backend(SEARCH_PATH, request)
            text = bounded_text(answer.get("output"), "the provider's alpha/search answer `output`")
        else:
            raise RespondToModel(NO_ROUTE)
        return ToolOutput(body=[{"type": "input_text", "text": text}], keep_items=True)
