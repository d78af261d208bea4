"""The built-in tools a session registers, in Codex's planning order
(``add_core_utility_tools`` in codex-rs/core/src/tools/spec_plan.rs), which the model-visible order follows.

Gates live here: a disabled tool is absent from the registry, not just hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Tool
from .handlers.plugin_install import plugin_install_tools
from .handlers.request_permissions import RequestPermissionsTool
from .handlers.request_user_input import RequestUserInputTool
from .handlers.clock import clock_tools
from .handlers.context_budget import context_budget_tools
from .handlers.image_gen import image_gen_tools
from .handlers.update_plan import UpdatePlanTool
from .handlers.view_image import view_image_tools
from .handlers.web_run import web_run_enabled, web_run_tools
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
        tools.append(RequestPermissionsTool())
    tools.extend(context_budget_tools(config))  # new_context, get_context_remaining ([features] token_budget)
    tools.extend(plugin_install_tools(config))  # when install candidates are configured
    tools.extend(view_image_tools(config))  # the session always has its environment (cwd)
    tools.extend(clock_tools(config))  # clock.curr_time (+ clock.sleep)
    tools.extend(web_run_tools(config))  # web.run ([features] standalone_web_search + the provider's support)
    tools.extend(image_gen_tools(config))  # image_gen.imagegen ([features] image_generation + the provider)
    if not web_run_enabled(config):  # web.run replaces the hosted search
        tools.extend(web_search_tools(config))  # hosted: declared last, as in Codex
    return tools
