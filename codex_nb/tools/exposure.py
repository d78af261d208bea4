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
        """``Direct`` or ``DirectModelOnly``: the tool's spec is in the model's tool list at every step."""
        return self in (ToolExposure.Direct, ToolExposure.DirectModelOnly)

    @property
    def is_deferred(self) -> bool:
        """``Deferred`` or ``DeferredModelOnly``: the model finds the tool with ``tool_search``; its
        namespace is announced, its spec is not listed."""
        return self in (ToolExposure.Deferred, ToolExposure.DeferredModelOnly)

    @property
    def available_in_code_mode(self) -> bool:
        """``Direct``, ``Deferred`` or ``CodeModeOnly``: Code Mode's ``exec`` can call the tool as
        ``tools.X`` (the ``*ModelOnly`` and ``Hidden`` exposures keep it out)."""
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
