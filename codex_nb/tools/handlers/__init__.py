"""Built-in tool handlers, one module per tool.

Modules:

* ``ask``: what the two tools that ask the frontend share.
* ``clock``: ``clock.curr_time`` and ``clock.sleep``.
* ``context_budget``: ``get_context_remaining`` and ``new_context``.
* ``image_gen``: ``image_gen.imagegen``, image generation the provider's Images API answers.
* ``plugin_install``: the plugin install suggestion tools.
* ``request_permissions``: ``request_permissions``, extra filesystem or network access for the turn.
* ``request_user_input``: ``request_user_input``, one to three questions for the user.
* ``seed_tools``: what ``web.run`` and ``image_gen.imagegen`` share (recorded specs, provider facts, handlers).
* ``tool_search``: ``tool_search``, which loads deferred tools for the next step.
* ``update_plan``: ``update_plan``, the checklist tool this project exists to show.
* ``view_image``: ``view_image``, a local image shown to the model.
* ``web_run``: ``web.run``, the standalone web search the provider's ``alpha/search`` answers.
* ``web_run_commands``: ``web.run``'s arguments read as Codex reads them.
* ``web_search``: the hosted ``web_search`` declaration.

Layer: part of ``tools/``.
"""
