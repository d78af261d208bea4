"""The notebook as the agent's workspace: tools that read, run and edit the live notebook.

Modules:

* ``tools``: the ``notebook`` namespace (list_cells, read_cell, inspect_variable, run_code,
  insert_cell, edit_cell, run_cell), each a ``Tool`` through the ordinary dispatch pipeline.
* ``workspace``: what those tools of one session share (settings, namespace, document, what the
  agent last saw of each cell).
* ``document``: the ``NotebookDocument`` protocol the front end implements
  (``widgets.notebook_bridge`` in JupyterLab / Notebook 7), and the messages for when there is none.
* ``namespace``: inspect_variable and the user namespace.
* ``run``: run_code; ``capture``: its prints and displays, routed by thread; ``code_threads``: user code
  on a thread a timeout or Stop can interrupt.
* ``cells``: a cell as the model reads it; ``visible_text``: bounded, visible text and images.
* ``approval``: asking the person before code runs or a cell changes.
* ``mcp_server``: ``NotebookMcpServer``, the same tools over MCP for the real Codex.

Layer: part of ``tools/``: it imports ``tools/`` and the layers below, never the adapters above
(its MCP server runs on the ``mcp`` SDK directly); ``runtime/`` turns the tools on for a session.
"""

from .cells import Cell
from .document import CellNotFound, DocumentUnavailable, EditConflict, NotebookDocument
from .tools import NAMESPACE, notebook_tools
from .workspace import NotebookWorkspace

__all__ = [
    "NAMESPACE",
    "Cell",
    "CellNotFound",
    "DocumentUnavailable",
    "EditConflict",
    "NotebookDocument",
    "NotebookWorkspace",
    "notebook_tools",
]
