"""Tools as Codex runs them: names, exposure, specs, the registry and per-step planner, the
router and the ordered dispatch pipeline, lifecycle outcomes, and the built-in handlers.

The package's ``__all__`` is what a tool author writes against (a tool's class, the invocation it
receives, the output it returns, the errors it raises, how it is exposed and named); everything
else is internal. The names load on first use, so importing one tool module costs no more.

Modules:

* ``arguments``: JSON arguments parsed with serde-style messages.
* ``base``: the ``Tool`` base class.
* ``builtins``: the built-in tools, in Codex's planning order.
* ``change_tracker``: what a turn's own tools changed, as the turn's unified diff.
* ``calls``: one call under cancellation, and the parallel gate's walk.
* ``cancellation``: cancellation tokens with a source and a reason.
* ``context_window``: what a session knows of the model's context window.
* ``tool_errors``: ``RespondToModel`` (the model reads it) and ``Fatal`` (the turn ends).
* ``exposure``: ``ToolExposure``, where a tool is visible (never whether it runs).
* ``handlers/``: the built-in handlers, one module per tool.
* ``hook_points``: the hook port, so ``tools/`` never imports ``hooks/``.
* ``input_schema``: input schemas as Codex 0.169 ingests them.
* ``invocation``: what a handler receives.
* ``lifecycle``: terminal outcomes and control-tool facts.
* ``names``: tool names and their spellings.
* ``notebook/``: the notebook tools (read, run and edit the live notebook) and their MCP server.
* ``parallel``: the per-step reader-writer gate.
* ``payload``: payloads, ``ToolCall`` and ``ToolOutput``.
* ``pipeline``: the ordered dispatch steps.
* ``planner``: one snapshot to model-visible specs and router.
* ``python_tool``: Python functions as tools.
* ``registry``: the mutable registry with a generation counter.
* ``router``: response items to calls, against the step's one snapshot.
* ``schema``: schemas and specs in Codex's byte order.
* ``schema_tool``: tools defined by a raw JSON schema.
* ``search/``: ``tool_search``'s BM25 index.
* ``threads``: worker threads for sync tools and hooks.

Layer: above ``frontend/``, ``events/`` and ``config/`` (which it may import, with everything
below); ``hooks/``, ``code_mode/``, the adapters and the layers above import it. It never imports
them: hooks and Code Mode plug in through ports (``hook_points``, the planner's finalizer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach as _attach

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived
    from .base import Tool as Tool
    from .tool_errors import Fatal as Fatal, RespondToModel as RespondToModel
    from .exposure import ToolExposure as ToolExposure
    from .invocation import ModeKind as ModeKind, ToolInvocation as ToolInvocation
    from .names import ToolName as ToolName
    from .payload import ToolOutput as ToolOutput

__getattr__, __dir__ = _attach(__name__)
