"""Code Mode (codex-rs/core/src/tools/code_mode/ in Codex): the model writes JavaScript that calls other tools.

``exec`` runs the script in a fresh V8 isolate (mini-racer) on a host thread; every
``tools.X(...)`` call goes back through the dispatch pipeline (``tools.calls.run_call``).
An adapter above ``tools/``: ``planning.CodeModeFinalizer`` is the planner finalizer the
Session injects; ``exec_wait`` holds the two tools, ``cell_manager`` a session's cells.

Modules:

* ``cell``: one ``exec`` cell: its isolate, output and limits.
* ``cell_manager``: a session's cells and ``store``, which outlive a turn.
* ``description``: the ``exec`` description and per-tool TypeScript declarations.
* ``exec_wait``: the ``exec`` and ``wait`` tools and nested ``tools.X(...)`` dispatch.
* ``host``: the thread and loop that own every V8 isolate.
* ``tool_names``: the two tool names, cheap to import.
* ``output``: what ``exec`` / ``wait`` answer the model.
* ``planning``: the planner finalizer: exposures, nested tools, ``exec`` / ``wait`` first.
* ``pragma``: the optional ``// @exec:`` first line.
* ``specs``: the ``exec`` and ``wait`` tool specs.
* ``typescript``: JSON Schema to TypeScript type text.

Layer: above ``tools/`` (which it may import, with everything below), beside ``hooks/``,
``code_mode/`` and the adapters (``app_server/``, ``acp/`` ...); ``runtime/`` and the layers above may
import it.
"""
