"""Code Mode finalisation of a step's tools: the last step of Codex's per-step planning
(``register_code_mode_executors`` in codex-rs/core/src/tools/spec_plan.rs).

``CodeModeFinalizer`` is one planner's Code Mode part: it applies the plan-time
exposure overrides, decides which tools are nested, prepends ``exec`` and ``wait``,
augments descriptions (CodeMode) or hides nested tools (CodeModeOnly). It owns the
session's ``CodeModeRuntime``; the V8 host thread starts on the first ``exec``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from ..tools.exposure import ToolExposure
from ..tools.names import ToolName
from ..tools.registry import RegisteredTool, RegistrySnapshot
from ..tools.router import ToolRouter
from ..config import Config
from ..config.code_mode import CodeModeSettings, ToolMode
from ..tools.invocation import TurnContext
from ..tools.planner import FinalizedTools

if TYPE_CHECKING:
    from .cell_manager import CodeModeRuntime
    from .description import NestedToolDefinition

from .tool_names import EXEC_TOOL_NAME, WAIT_TOOL_NAME

# The Code Mode machinery (V8 via mini-racer, the description and TypeScript builders)
# is imported on first use: a session without Code Mode never loads it.

log = logging.getLogger("codex_nb.code_mode")
CODE_MODE_SOURCE = "code_mode"
_NOT_NESTABLE = frozenset({"tool_search", "web_search"})


def nested_definition(entry: RegisteredTool) -> NestedToolDefinition:
    from .description import NestedToolDefinition

    spec = entry.tool.spec()
    kind: Literal["function", "freeform"] = "freeform" if entry.tool.kind == "custom" else "function"
    return NestedToolDefinition(
        tool_name=entry.tool.tool_name,
        description=str(spec.get("description", "")),
        kind=kind,
        input_schema=spec.get("parameters") if kind == "function" else None,
        output_schema=getattr(entry.tool, "output_schema", None),
        namespace_description=entry.tool.namespace_description,
    )


def select_nested(entries: list[RegisteredTool], settings: CodeModeSettings) -> dict[ToolName, NestedToolDefinition]:
    """The tools reachable as ``tools.X``; a duplicate identifier keeps the first tool, as in Codex."""
    nested: dict[ToolName, NestedToolDefinition] = {}
    taken: set[str] = set()
    for entry in entries:
        name = entry.tool.tool_name
        if not entry.exposure.available_in_code_mode or name.namespace in settings.excluded_tool_namespaces:
            continue
        if name.is_default and name.name in (EXEC_TOOL_NAME, WAIT_TOOL_NAME, *_NOT_NESTABLE):
            continue
        definition = nested_definition(entry)
        if definition.identifier in taken:
            log.warning("skipping tool with a duplicate normalized code-mode name: %s", name.dotted)
            continue
        taken.add(definition.identifier)
        nested[name] = definition
    return nested


class CodeModeFinalizer:
    """A planner finalizer (see ``tools.planner.Finalizer``) bound to one session's runtime."""

    def __init__(self) -> None:
        self._runtime: CodeModeRuntime | None = None

    def runtime(self, settings: CodeModeSettings) -> CodeModeRuntime:
        from .cell import CellLimits
        from .cell_manager import CodeModeRuntime

        if self._runtime is None:
            self._runtime = CodeModeRuntime(
                limits=CellLimits(
                    memory_limit_bytes=settings.memory_limit_bytes,
                    max_wall_time_s=settings.max_wall_time_s,
                    max_live_cells=settings.max_live_cells,
                    max_notify_bytes=settings.max_notify_bytes,
                )
            )
        return self._runtime

    def terminate_cells_on_cancel(self, turn: TurnContext) -> None:
        """As Codex's interrupt does, interrupting a turn terminates every active cell of the session,
        including cells that yielded in an earlier turn."""
        loop = asyncio.get_running_loop()

        def on_cancel() -> None:
            runtime = self._runtime
            if runtime is not None and runtime.active_cell_ids:
                loop.call_soon_threadsafe(runtime.spawn, runtime.terminate_all("turn interrupted"))

        turn.cancel.on_cancel(on_cancel)

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None

    async def aclose(self) -> None:
        """Terminate every cell of this session without blocking the loop; idempotent."""
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            await runtime.aclose()

    def __call__(self, entries: list[RegisteredTool], config: Config) -> FinalizedTools:
        settings: CodeModeSettings = config.code_mode
        mode = settings.mode
        if mode is ToolMode.DIRECT:
            return FinalizedTools(entries)
        entries = [direct_only_override(e, settings) for e in entries]
        for e in entries:
            if e.tool.tool_name.is_default and e.tool.name in (EXEC_TOOL_NAME, WAIT_TOOL_NAME):
                log.warning("tool %s collides with Code Mode's %s and is removed", e.tool.tool_name.dotted, e.tool.name)
        entries = [
            e for e in entries if not (e.tool.tool_name.is_default and e.tool.name in (EXEC_TOOL_NAME, WAIT_TOOL_NAME))
        ]
        from .cell_manager import NestedToolEntry
        from .description import build_exec_description, code_mode_sample
        from .exec_wait import ExecTool, NestedTarget, WaitTool

        nested = select_nested(entries, settings)
        listed = [d for n, d in nested.items() if not _exposure_of(entries, n).is_deferred]
        deferred = [d for n, d in nested.items() if _exposure_of(entries, n).is_deferred]
        only = mode is ToolMode.CODE_MODE_ONLY
        description = build_exec_description(
            listed, deferred=deferred, code_mode_only=only, default_yield_time_ms=settings.default_exec_yield_time_ms
        )
        runtime = self.runtime(settings)
        exec_tool = ExecTool(
            runtime=runtime,
            description=description,
            targets={d.identifier: NestedTarget(tool_name=n, kind=d.kind) for n, d in nested.items()},
            # ALL_TOOLS describes each tool as the exec description does (Codex 0.169)
            entries=[
                NestedToolEntry(name=d.identifier, description=code_mode_sample(d).strip(), kind=d.kind)
                for d in nested.values()
            ],
            default_yield_time_ms=settings.default_exec_yield_time_ms,
        )
        wait_tool = WaitTool(runtime=runtime)
        final = [
            RegisteredTool(exec_tool, CODE_MODE_SOURCE, ToolExposure.Direct),
            RegisteredTool(wait_tool, CODE_MODE_SOURCE, ToolExposure.Direct),
            *entries,
        ]
        exec_tool.router = ToolRouter(RegistrySnapshot(0, {e.tool.tool_name: e for e in final}))

        def visible(entry: RegisteredTool) -> bool:
            return entry.exposure.is_direct and not (only and entry.tool.tool_name in nested)

        def spec_for(entry: RegisteredTool) -> dict[str, Any]:
            spec = entry.tool.spec()
            definition = nested.get(entry.tool.tool_name)
            if only or definition is None or entry.tool is exec_tool:
                return spec
            return {**spec, "description": code_mode_sample(definition)}

        return FinalizedTools(final, spec_for=spec_for, visible=visible)


def direct_only_override(entry: RegisteredTool, settings: CodeModeSettings) -> RegisteredTool:
    """Codex's first finalize step: code-mode-available tools in a direct-only namespace become DirectModelOnly."""
    if entry.tool.tool_name.namespace in settings.direct_only_tool_namespaces and entry.exposure.available_in_code_mode:
        return replace(entry, exposure=ToolExposure.DirectModelOnly)
    return entry


def _exposure_of(entries: list[RegisteredTool], name: ToolName) -> ToolExposure:
    return next(e.exposure for e in entries if e.tool.tool_name == name)
