"""Code Mode (codex-rs/core/src/tools/code_mode/ in Codex): the model writes JavaScript that calls other tools.

``exec`` runs the script in a fresh V8 isolate (mini-racer) on a host thread; every
``tools.X(...)`` call goes back through the dispatch pipeline (``tools.calls.run_call``).
An adapter above ``tools/``: ``planning.CodeModeFinalizer`` is the planner finalizer the
Session injects; ``exec_wait`` holds the two tools, ``cell_manager`` a session's cells.
"""
