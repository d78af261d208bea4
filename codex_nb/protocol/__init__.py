"""Pure wire types: plan arguments, events, response items, app-server shapes.

Modules:

* ``app_server``: app-server v2 shapes Codex clients read.
* ``auto_review``: ``auto_approval_review``, Codex's automatic review of an approval.
* ``capabilities``: ``AgentSource`` (the person's verbs on any source) and ``Capabilities`` (what it offers).
* ``events``: core events, one class per ``msg.type``.
* ``frontend``: wire types of the tools that wait for a person.
* ``goal``: ``goal_updated``, a thread goal's state and its one wording.
* ``ids``: cheap uuid4-form ids.
* ``items``: Responses API call and output items.
* ``model``: what a model is to the turn loop.
* ``model_stream``: what a streaming model yields.
* ``plan``: ``update_plan`` arguments, strict like serde.
* ``rewind``: ``thread_rewound``, the turns a rewind undid.
* ``serde``: fast typed parsing with duplicate-key detection.
* ``serde_json``: serde_json's error texts, for the slow path.
* ``thread_state``: ``thread_status``, ``thread_settings``, ``queue_changed``: the real Codex's account of a thread.
* ``turn_diff``: ``turn_diff``, the whole turn's unified diff, read by file.
* ``structs``: the two pydantic struct kinds the protocol uses.
* ``wire``: JSON bytes as serde_json writes them.

Layer: the bottom, with ``errors`` and ``_process/``; it imports no higher codex_nb layer, and every
layer may import it.
"""
