"""A real Responses-API model provider, configured the way Codex configures one.

Modules:

* ``cassette``: ``cassette=``: requests recorded to a file once, replayed offline.
* ``http_guard``: one origin and bounded bodies.
* ``limits``: bounds on what a server sends, and ``Retry-After``.
* ``model``: ``ResponsesModel`` on the official ``openai`` SDK.
* ``provider``: ``[model_providers.NAME]`` with Codex's defaults.
* ``redact``: API keys kept out of every text.
* ``request``: the request body as Codex 0.169 sends it.
* ``stream``: stream events to what the turn loop consumes.

Layer: part of ``sources/``.
"""
