"""The built-in tools a session registers, in Codex's planning order
(``add_core_utility_tools`` in codex-rs/core/src/tools/spec_plan.rs), which the model-visible order follows.

Gates live here: a disabled tool is absent from the registry, not just hidden. A tool that is
off unless the config turns it on (request_permissions, view_image, plugin install, web.run,
image_gen) has its handler module imported only behind its gate, so the first ``Session()``
does not pay for handlers it will not register.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Tool
from .handlers.clock import clock_tools
from .handlers.context_budget import context_budget_tools
from .handlers.request_user_input import RequestUserInputTool
from .handlers.seed_tools import image_gen_enabled, web_run_enabled
from .handlers.update_plan import UpdatePlanTool
from .handlers.web_search import web_search_tools

if TYPE_CHECKING:
    from ..config import Config


def builtin_tools(config: Config) -> list[Tool]:
    tools: list[Tool] = []
    if config.update_plan_enabled:
        tools.append(UpdatePlanTool())
    if config.request_user_input_enabled:
        tools.append(RequestUserInputTool(config))
    if config.request_permissions_tool:  # the session always has its primary environment (cwd)
        from .handlers.request_permissions import RequestPermissionsTool

        tools.append(RequestPermissionsTool())
    tools.extend(context_budget_tools(config))  # new_context, get_context_remaining ([features] token_budget)
    if _has_install_candidates(config):
        from .handlers.plugin_install import plugin_install_tools

        tools.extend(plugin_install_tools(config))  # when install candidates are configured
    if config.view_image:
        from .handlers.view_image import view_image_tools

        tools.extend(view_image_tools(config))  # the session always has its environment (cwd)
    tools.extend(clock_tools(config))  # clock.curr_time (+ clock.sleep)
    web_run = web_run_enabled(config)
    if web_run:
        from .handlers.web_run import web_run_tools

        tools.extend(web_run_tools(config))  # web.run ([features] standalone_web_search + the provider's support)
    if image_gen_enabled(config):
        from .handlers.image_gen import image_gen_tools

        tools.extend(image_gen_tools(config))  # image_gen.imagegen ([features] image_generation + the provider)
    if not web_run:  # web.run replaces the hosted search
        tools.extend(web_search_tools(config))  # hosted: declared last, as in Codex
    return tools


def _has_install_candidates(config: Config) -> bool:
    """Whether ``[[codex_nb.install_candidates]]`` is given at all; ``plugin_install_tools`` checks the rest
    (and rejects a malformed one with a ConfigError)."""
    own = config.extra.get("codex_nb", {}) if isinstance(config.extra, dict) else {}
    return isinstance(own, dict) and "install_candidates" in own
