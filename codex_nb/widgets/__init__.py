"""anywidget widgets (Python side). Import the widget modules directly; nothing is imported here.

Modules:

* ``_static``: where the built widget bundle (``static/``, from ``js/``) lives.
* ``browser_messages``: browser-to-kernel message validation.
* ``checklist``: ``PlanChecklist``, the live checklist.
* ``compare``: ``cx.compare`` and ``Comparison``, several agents on one task side by side.
* ``diff_static``: a turn's diff as static HTML (the saved "what changed").
* ``final_state``: stored outputs updated in place to the widget's final state.
* ``heartbeat``: ``Heartbeat``, what the running turn does and for how long.
* ``hook_runs``: one hook run in words (transcript and heartbeat).
* ``kernel_comm_parent``: replies kept with their own cell on ipykernel 7.4.
* ``kernel_loop``: a view message's work handed to the kernel's loop (``call_on``).
* ``notebook_bridge``: ``NotebookBridge``, the notebook tools' path to the open document.
* ``plan_answers``: ``PlanAnswersWidget``, the plan with a person's comments, suggestions and decisions.
* ``plan_static``: static renderings of one snapshot.
* ``prompts``: ``PromptsWidget``, answers for the tools that ask.
* ``replay``: ``ReplayScrubber`` for saved sessions.
* ``saved_state``: widget state a background task changed, re-sent at each cell's end so it is saved.
* ``sessions_browser``: ``SessionsBrowser``, a Codex home's saved sessions: browse, open, resume, fork.
* ``static_fallback``: stable ``text/plain`` and ``text/html``.
* ``testing``: a recording comm for tests without a kernel.
* ``thread_actions``: a real Codex thread's verb a view asked for, run on the server's loop.
* ``timeline``: ``PlanTimelineWidget``.
* ``timeline_static``: the timeline as static HTML.
* ``transcript``: ``Transcript``, the running turn.
* ``transcript_rewind``: the transcript's "Rewind to here".
* ``transcript_state``: the transcript folded from events.
* ``turn_controls``: ``TurnControls``: Stop, the usage meter, the goal card, option pickers, Compact.

Layer: the top, with ``render/``, ``widgets/``, ``extension/`` and ``agent_server/``, which may import
one another; it may import every layer below, and no lower layer imports it.
"""
