"""Requests that wait for a person: the broker (``requests``) and the headless answer policy.

Modules:

* ``answer_policy``: who answers when no person is at a widget (nbval, CI, scripts).
* ``requests``: the broker that settles every waiting request exactly once.

Layer: above ``protocol/`` (which it may import), beside ``events/`` and ``config/``; ``tools/`` and
everything above may import it.
"""
