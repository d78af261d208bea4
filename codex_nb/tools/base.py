"""The ``Tool`` base class every built-in, Python-function and Code Mode tool derives from.

A tool knows its name, its spec, how it is exposed, whether it may run in parallel,
and how to handle one invocation. Handlers raise ``RespondToModel`` / ``Fatal`` for
failures and call ``invocation.emit(...)`` for events; they never touch the session.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..protocol.serde import SerdeError
from ..protocol.serde import typed_loads as loads
from .exposure import ToolExposure
from .names import ToolName
from .payload import ToolOutput

if TYPE_CHECKING:
    from .invocation import ToolInvocation


class Tool(ABC):
    """One dispatchable tool. Subclasses set the class attributes or override properties."""

    kind: ClassVar[Literal["function", "custom"]] = "function"
    is_control_tool: ClassVar[bool] = False
    """Builtin control tools (update_plan, request_user_input, view_image) get a guard fact
    (as in codex-rs/core/src/tools/control_tool_analytics.rs)."""
    runs_hooks: ClassVar[bool] = True
    """False for tools that opt out of PreToolUse/PostToolUse (``exec``, ``wait``)."""
    inline_start: ClassVar[bool] = False
    """True for handlers that usually finish without waiting (``update_plan``): the call runner
    starts them on its own stack and hands them to a task only at their first real wait
    (``tools.calls.start_inline``). Such a handler must not rely on ``asyncio.current_task()``
    before that wait (``asyncio.timeout`` / ``TaskGroup`` there would bind to the caller)."""

    def __init__(
        self,
        name: str | ToolName,
        *,
        namespace: str | None = None,
        exposure: ToolExposure = ToolExposure.Direct,
        supports_parallel: bool = False,
        namespace_description: str = "",
    ) -> None:
        self.tool_name = name if isinstance(name, ToolName) else ToolName.of(name, namespace)
        self.exposure = exposure
        self.supports_parallel = supports_parallel
        self.namespace_description = namespace_description

    @property
    def name(self) -> str:
        """The bare tool name, without its namespace (``tool_name`` has both)."""
        return self.tool_name.name

    @abstractmethod
    def spec(self) -> dict[str, Any]:
        """The Responses API tool dict (``function`` or ``custom``), in Codex key order."""

    @abstractmethod
    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        """Run one call. Raise ``RespondToModel`` or ``Fatal`` to fail."""

    def accepts(self, payload_kind: str) -> bool:
        """Payload-kind check (a mismatch is Fatal in Codex): function tools take Function and ToolSearch."""
        if self.kind == "function":
            return payload_kind in ("function", "tool_search")
        return payload_kind == "custom"

    # -- hook payloads (what a hook's stdin says about the call): generic function tools --------
    @property
    def hook_tool_name(self) -> str:
        """The ``tool_name`` hooks see and their matchers match: the bare name in the default
        namespace, else namespace and name joined with no separator, as Codex spells it."""
        return self.tool_name.display

    def hook_tool_input(self, payload_text: str) -> Any:
        """Parsed arguments; blank becomes ``{}``, non-JSON text becomes a JSON string."""
        if not payload_text.strip():
            return {}
        try:
            return loads(payload_text)
        except SerdeError:
            return payload_text

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.tool_name.dotted} exposure={self.exposure.name}>"
