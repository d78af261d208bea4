"""The notebook's ``Session``: the runtime session plus shortcuts that make its widgets.

``runtime.Session`` is complete without widgets (layers run one way: runtime/ never
imports widgets/). This module sits beside the widgets, above runtime/, and adds
``checklist()``, ``prompts()`` and ``turn_controls()``; ``codex_nb.Session`` is this
class. The widget modules (ipywidgets, anywidget: ~0.7 s) load on the first shortcut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .runtime.session import Session as RuntimeSession

if TYPE_CHECKING:
    from .sources.workspace.mcp_server import NotebookMcpServer
    from .widgets.checklist import PlanChecklist
    from .widgets.prompts import PromptsWidget
    from .widgets.turn_controls import TurnControls


class Session(RuntimeSession):
    """One conversation thread: its tools, hooks, history and turns, plus widget shortcuts.

    ``run_turn`` runs a turn to its end; in a notebook, ``start_turn`` returns a handle at once
    and the turn runs in the background while the widgets follow it.

    ```pycon
    >>> import asyncio, codex_nb as cx
    >>> session = cx.Session()  # the notebook profile: update_plan is on
    >>> checklist = session.checklist()  # display it in a notebook cell
    >>> plan = {"plan": [{"step": "Fix it", "status": "in_progress"}]}
    >>> model = cx.ScriptedModel([[cx.function_call("update_plan", plan)], [cx.assistant_message("done")]])
    >>> result = asyncio.run(session.run_turn("fix the bug", model=model))
    >>> result.status, result.last_agent_message
    ('completed', 'done')
    >>> print(checklist.text())
    • Updated Plan
      └ □ Fix it
    >>> checklist.close()

    ```
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._mcp_servers: list[NotebookMcpServer] = []
        if self.config.notebook_tools.enabled:  # the document tools reach the page through the bridge widget
            self.workspace.set_document(self._notebook_bridge)

    async def serve_notebook_tools(self, *, max_calls: int = 8, max_requests: int = 32) -> NotebookMcpServer:
        """Start an MCP server (streamable HTTP on 127.0.0.1, a bearer token of its own) that serves
        this session's notebook tools to the real Codex or any MCP client; every call runs through
        this session's hooks and approvals. Pass ``server.env()`` and ``server.codex_config()`` to
        ``cx.CodexAppServer``; ``await server.aclose()`` stops it. ``max_calls``: tool calls running at
        once; ``max_requests``: HTTP requests in flight (a client's open event stream is one)."""
        from .sources.workspace.mcp_server import NotebookMcpServer
        from .sources.workspace.tools import notebook_tools

        async def dispatch(name: str, arguments: dict[str, Any]) -> Any:
            return await self.call_tool(f"notebook.{name}", arguments)

        server = await NotebookMcpServer(
            notebook_tools(self.config, self.workspace), dispatch, max_calls=max_calls, max_requests=max_requests
        ).start()
        self._mcp_servers.append(server)
        return server

    async def aclose(self) -> None:
        """Also stops the notebook MCP servers this session started (see ``runtime.Session.aclose``)."""
        servers, self._mcp_servers = self._mcp_servers, []
        for server in servers:
            await server.aclose()
        await super().aclose()

    def share_prompts_with(self, source: Any) -> None:
        """Ask this session's approvals in ``source``'s prompts widget (a ``CodexThread``, say), so a
        notebook tool that Codex calls asks in the widget shown for that thread."""
        self.frontend_requests = source.frontend_requests

    def _notebook_bridge(self) -> Any:
        from .widgets.notebook_bridge import NotebookBridge

        return NotebookBridge(frontend_timeout=self.config.notebook_tools.frontend_timeout_seconds)

    def checklist(self, **options: Any) -> PlanChecklist:
        """A live ``PlanChecklist`` widget of this session (options: width, max_rate)."""
        from .widgets.checklist import PlanChecklist

        return PlanChecklist(self, **options)

    def prompts(self) -> PromptsWidget:
        """The prompts widget of this session (questions and permission requests); display it."""
        from .widgets.prompts import PromptsWidget

        return PromptsWidget(self)

    def turn_controls(self) -> TurnControls:
        """A ``TurnControls`` widget: this session's turn state and a Stop button."""
        from .widgets.turn_controls import TurnControls

        return TurnControls(self)
