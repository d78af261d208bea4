"""The hosted ``web_search`` declaration (``codex-rs/core/src/tools/spec_plan.rs``; observed with 0.169 and 0.171).

The provider runs the search; codex_nb only declares it, and the model's
``web_search_call`` items are recorded in history like any other output item (they
are not tool calls for the router). Observed with the real binary:

* ``cached`` (Codex's default): ``{"type": "web_search", "external_web_access": false, ...}``
* ``live``: ``external_web_access: true``
* ``indexed``: ``external_web_access: true, indexed_web_access: true``
* ``disabled``: not declared.

``search_content_types: ["text", "image"]`` follows when the model's web-search type is
``text_and_image``: every model in the pinned binary's bundled catalog (``CATALOG_TEXT_AND_IMAGE``,
``codex debug models --bundled``; 0.171 added ``gpt-6.2-sol`` and ``gpt-6.2-astra`` to 0.169's);
a model outside the catalog (e.g. ``gpt-5.1-codex``) gets Codex's default, text only.
``[codex_nb] web_search_images = true/false`` overrides the catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import Tool
from ..tool_errors import Fatal
from ..exposure import ToolExposure
from ..invocation import ToolInvocation
from ..payload import ToolOutput

if TYPE_CHECKING:
    from ...config import Config


# The bundled model catalog of the pinned Codex (0.171): every entry has web_search_tool_type "text_and_image".
CATALOG_TEXT_AND_IMAGE = frozenset(
    {
        "codex-auto-review",
        "gpt-5.5",
        "gpt-5.6-luna",
        "gpt-5.6-sol",
        "gpt-5.6-terra",
        "gpt-6-astra",
        "gpt-6-luna",
        "gpt-6-sol",
        "gpt-6.1-sol",
        "gpt-6.1-terra",
        "gpt-6.2-astra",
        "gpt-6.2-sol",
        "gpt-daybreak-blue-latest",
        "gpt-daybreak-red-latest",
    }
)


def web_search_tools(config: Config) -> list[Tool]:
    if config.web_search == "disabled":
        return []
    own = config.extra.get("codex_nb", {}) if isinstance(config.extra, dict) else {}
    override = own.get("web_search_images") if isinstance(own, dict) else None
    images = override if isinstance(override, bool) else config.model_slug in CATALOG_TEXT_AND_IMAGE
    return [WebSearchTool(config.web_search, images=images)]


class WebSearchTool(Tool):
    """Declared for the provider; never dispatched (the router does not route ``web_search_call``)."""

    def __init__(self, mode: str, *, images: bool = True) -> None:
        super().__init__("web_search", exposure=ToolExposure.DirectModelOnly)
        self.mode = mode
        self.images = images

    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"type": "web_search", "external_web_access": self.mode in ("live", "indexed")}
        if self.mode == "indexed":
            spec["indexed_web_access"] = True
        if self.images:
            spec["search_content_types"] = ["text", "image"]
        return spec

    def accepts(self, payload_kind: str) -> bool:
        return False

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        raise Fatal("web_search is hosted: the model provider runs it, codex_nb never executes it")
