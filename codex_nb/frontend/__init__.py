"""Requests that wait for a person: the broker (``requests``) and the headless answer policy.

Modules:

* ``answer_policy``: who answers when no person is at a widget (nbval, CI, scripts).
* ``decisions``: the decisions a command or file-change approval offers, and reading an answer.
* ``elicitation``: MCP elicitation forms read from their JSON Schema, and their answers checked.
* ``normalize``: an answer checked against the request it answers, in the wire shape (loaded
  with the first answer, with the request models).
* ``record``: the approvals record (``session.approvals``): what was asked, answered, by whom, when.
* ``requests``: the broker that settles every waiting request exactly once.

Layer: above ``protocol/`` (which it may import), beside ``events/`` and ``config/``; ``tools/`` and
everything above may import it.
"""
