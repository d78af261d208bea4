"""The composition root: Session, the turn loop, history repair, ScriptedModel, call records.

Everything below (tools/, hooks/, code_mode/, events/, frontend/) is wired together here;
nothing below imports runtime/.

Modules:

* ``history``: history pairing repair before every request.
* ``models``: ``ScriptedModel``, the strict fake.
* ``call_records``: lifecycle records and control-tool facts.
* ``proposed_plan``: Plan mode's ``<proposed_plan>`` block published as a ``plan`` item.
* ``session``: ``Session``, the composition root.
* ``streaming``: one sampling step on a streaming model.
* ``turn``: the turn loop.

Layer: above ``hooks/``, ``code_mode/`` and the adapters (which it may import, with everything
below), beside ``timeline/``; no lower layer imports it, so the pieces it wires stay independent.
"""
