"""codex_nb's own runtime as an ACP agent, so ACP editors (Zed and others) can drive it.

``python -m codex_nb.acp_server --script responses.json`` serves ACP on stdin/stdout with a
scripted model; from Python, ``await codex_nb.acp.serve(model)`` serves any model with
``async sample(request)``. Each ACP session is a ``cx.Session``: its ``plan_update``
events go out as ACP ``plan`` updates, tool calls as ``tool_call`` /
``tool_call_update``, the assistant's messages as message chunks, and a turn's status
as the ``stopReason``.

Modules:

* ``__main__``: ``python -m codex_nb.acp_server``: serve a scripted model on stdio.
* ``server``: the agent half of ACP over a ``cx.Session``.

Layer: the top, with ``render/``, ``widgets/``, ``extension/``, ``notebook``, ``acp_server/`` and
the thin public modules, which may import one another; it may import every layer below, and no lower
layer imports it.
"""

from .server import CodexNbAgent, serve

__all__ = ["CodexNbAgent", "serve"]
