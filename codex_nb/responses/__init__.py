"""A real Responses-API model provider, configured the way Codex configures one: ``ResponsesModel``
(``cx.ResponsesModel``, defined in ``responses_model``). Its ``cassette=`` is
``codex_nb.cassettes.responses_cassette``.

Modules:

* ``http_guard``: one origin and bounded bodies.
* ``limits``: bounds on what a server sends, and ``Retry-After``.
* ``responses_model``: ``ResponsesModel`` on the official ``openai`` SDK.
* ``provider``: ``[model_providers.NAME]`` with Codex's defaults.
* ``redact``: API keys kept out of every text.
* ``request``: the request body as Codex sends it (0.169 and 0.171).
* ``stream``: stream events to what the turn loop consumes.
* ``tool_routes``: the provider's endpoints for ``web.run`` and ``image_gen.imagegen``.

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/``, ``rollouts/`` and
``cassettes/`` (above ``tools/``, which it may import with everything below); ``runtime/`` and the
layers above may import it.
"""
