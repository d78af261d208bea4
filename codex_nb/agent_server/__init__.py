"""codex_nb's own runtime as an ACP agent, so ACP editors (Zed and others) can drive it.

``python -m codex_nb.agent_server --script responses.json`` serves ACP on stdin/stdout with a
scripted model; from Python, ``await codex_nb.agent_server.serve(model)`` serves any model with
``async sample(request)``. Each ACP session is a ``cx.Session``: its ``plan_update``
events go out as ACP ``plan`` updates, tool calls as ``tool_call`` /
``tool_call_update``, the assistant's messages as message chunks, and a turn's status
as the ``stopReason``.

Modules:

* ``__main__``: ``python -m codex_nb.agent_server``: serve a scripted model on stdio.
* ``codex_agent``: ``CodexNbAgent``, the agent half of ACP over a ``cx.Session``.

Layer: the top, with ``render/``, ``widgets/``, ``extension/`` and ``agent_server/``, which may import
one another; it may import every layer below, and no lower layer imports it.
"""

from .codex_agent import CodexNbAgent, serve

__all__ = ["CodexNbAgent", "serve"]
