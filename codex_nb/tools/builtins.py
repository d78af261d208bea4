"""The built-in tools a session registers, in Codex's planning order (spec 02 §6).

Gates live here: a disabled tool is absent from the registry, not just hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Tool
from .handlers.update_plan import UpdatePlanTool

if TYPE_CHECKING:
    from ..config import Config


def builtin_tools(config: Config) -> list[Tool]:
    tools: list[Tool] = []
    if config.update_plan_enabled:
        tools.append(UpdatePlanTool())
    return tools
