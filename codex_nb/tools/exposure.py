"""``ToolExposure``: where a registered tool is visible (codex-rs/tools/src/tool_executor.rs).

Never affects dispatch.
"""

from __future__ import annotations

from enum import Enum


class ToolExposure(Enum):
    """Member names match Codex's variants."""

    Direct = "direct"
    DirectModelOnly = "direct_model_only"
    Deferred = "deferred"
    DeferredModelOnly = "deferred_model_only"
    CodeModeOnly = "code_mode_only"
    Hidden = "hidden"

    @property
    def is_direct(self) -> bool:
        return self in (ToolExposure.Direct, ToolExposure.DirectModelOnly)

    @property
    def is_deferred(self) -> bool:
        return self in (ToolExposure.Deferred, ToolExposure.DeferredModelOnly)

    @property
    def available_in_code_mode(self) -> bool:
        return self in (ToolExposure.Direct, ToolExposure.Deferred, ToolExposure.CodeModeOnly)

    @classmethod
    def from_flags(cls, *, direct: bool, deferred: bool, code: bool) -> ToolExposure:
        """Codex's MCP exposure policy: the (direct, deferred, code mode) flags that survive map to one exposure."""
        table = {
            (False, False, False): cls.Hidden,
            (False, False, True): cls.CodeModeOnly,
            (True, False, False): cls.DirectModelOnly,
            (True, False, True): cls.Direct,
            (False, True, False): cls.DeferredModelOnly,
            (False, True, True): cls.Deferred,
        }
        if (direct, deferred) == (True, True):
            raise ValueError("a tool cannot be both direct and deferred")
        return table[(direct, deferred, code)]
