"""The plan panel: the live checklist and Stop control in JupyterLab's side area.

A plan in a cell's output scrolls away; the panel stays put while the user scrolls and
while other cells run. Placement is done by ``sidecar`` (a maintained JupyterLab 4 /
ipywidgets 8 extension: an Output widget that lives in the right side area), not by a
front-end extension of ours. Whether a side area exists is only known in the browser, so
the cell that opens the panel shows a small note widget whose view reports it
(``{id, kind: "placed", area}``, ``protocol.json`` widget ``plan_panel``); the sidecar is made
when a view reports a side area (its view cannot be built anywhere else). Where the view
says ``cell`` (Notebook 7, VS Code, classic Notebook) or ``sidecar`` is not installed, the
same checklist and Stop control appear in that cell's output, and the note says why.

The panel follows one event source at a time; ``follow()`` retargets it (a ``%%codex``
cell on another session), replacing its widgets in place. Its header (``PanelHeader``) names the
session (with its title, when an ACP agent set one) and says
when no kernel backs the panel any more (the kernel shut down or restarted, or JupyterLab
restored it from widget state saved in a notebook) and offers to close it.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import Any

import anywidget
import ipywidgets
import traitlets

from ..widgets._static import asset, load_json
from ..widgets.checklist import PlanChecklist
from ..widgets.browser_messages import ProtocolError, validate_to_kernel
from ..widgets.static_fallback import StaticFallback
from ..widgets.turn_controls import TurnControls

log = logging.getLogger("codex_nb.extension.panel")

WIDGET = "plan_panel"
TITLE = "Codex plan"
NO_SIDECAR = (
    "{title}: the side panel needs the `sidecar` package (pip install -e '.[lab]' in a codex_nb "
    "checkout, or pip install 'codex_nb[lab]' from a release, then reload JupyterLab); the plan and "
    "Stop control are shown here in the cell instead."
)


def _titled(label: str, title: object) -> str:
    return f"{label} · {title}" if isinstance(title, str) and title else label


def panel_areas() -> tuple[str, ...]:
    return tuple(load_json("protocol.json")["widgets"][WIDGET]["areas"])


def sidecar_class() -> type | None:
    try:
        from sidecar import Sidecar
    except ImportError:
        return None
    return Sidecar


class PanelHeader(anywidget.AnyWidget):
    """The panel's first line: its title and session, and a notice once no kernel backs it.

    The view watches the notebook's kernel and this widget's own comm: a panel left over from a
    kernel that shut down or restarted, or restored from saved widget state, says so and offers
    to close itself instead of looking like a plan that never moves."""

    _esm = asset("plan_panel.js")
    _css = asset("plan_panel.css")

    role = traitlets.Unicode("header").tag(sync=True)
    title = traitlets.Unicode(TITLE).tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)
    ref = traitlets.Unicode("").tag(sync=True)
    """This widget's own model id: the view looks its model up to see whether its comm is open."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ref = self.model_id


class PanelNote(StaticFallback, anywidget.AnyWidget):
    """The note a cell shows when it opens the panel; its view reports the page's area."""

    _esm = asset("plan_panel.js")
    _css = asset("plan_panel.css")

    role = traitlets.Unicode("note").tag(sync=True)
    title = traitlets.Unicode(TITLE).tag(sync=True)
    area = traitlets.Unicode("").tag(sync=True)
    """"" until a view reports; then ``side`` or ``cell``."""
    message = traitlets.Unicode("").tag(sync=True)
    """A note the kernel already knows better (sidecar missing); "" lets the view word it."""
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, *, on_placed: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_placed = on_placed
        self.rejected: list[str] = []
        self.on_msg(self._on_view_msg)

    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        try:
            self.handle_message(content)
        except ProtocolError as err:
            self.rejected.append(str(err))
            self.error = str(err)
        except Exception as err:  # never let a widget message kill the comm handler  # noqa: BLE001
            log.exception("plan panel message failed")
            self.error = f"internal error handling {content!r}: {type(err).__name__}: {err}"

    def handle_message(self, content: object) -> str:
        """Apply one ``placed`` report; returns the area (raises ``ProtocolError`` on a bad one)."""
        message = validate_to_kernel(WIDGET, content)
        area = message["area"]
        if area not in panel_areas():
            raise ProtocolError(f"placed: area must be one of {list(panel_areas())}, got {area!r}")
        if self.area != "cell":  # one view without a side area is enough to fall back
            self.area = area
        self._on_placed(area)
        return area

    def text(self) -> str:
        if self.message:
            return self.message
        return f"{self.title}: in JupyterLab's right side area; where there is none, shown here in the cell instead."

    def html(self) -> str:
        return f'<div class="cx-plan-panel-static">{html.escape(self.text())}</div>'

    def __repr__(self) -> str:
        return self.text()


class PanelCell(StaticFallback, ipywidgets.VBox):
    """The cell output of ``%codex_plan --panel``: the note, plus the plan where no side area exists."""

    children: tuple[Any, ...]  # VBox's trait; ipywidgets has no types, and it is assigned below

    def __init__(self, note: PanelNote) -> None:
        super().__init__(children=[note])
        self.note = note

    def show_inline(self, content: ipywidgets.Widget) -> None:
        if content not in self.children:
            self.children = (*self.children, content)

    def text(self) -> str:
        return self.note.text()

    def html(self) -> str:
        return self.note.html()


class PlanPanel:
    """The side-area panel of one kernel: checklist + Stop control of the followed source."""

    def __init__(self, source: Any, *, label: str) -> None:
        self.source = source
        self.label = label
        self.header = PanelHeader(title=TITLE)
        self.header.add_class("cx-plan-panel-header")
        self.content = ipywidgets.VBox()
        self.content.add_class("cx-plan-panel")
        self.content.layout.padding = "4px 8px"
        self.sidecar: Any = None
        self.cells: list[PanelCell] = []
        self.attached = ipywidgets.HTML("")
        """``2 cells attached``: cells Send to agent holds for the next prompt (empty when none)."""
        self.attached.add_class("cx-plan-panel-attached")
        self._unsubscribe_title: Callable[[], None] | None = None
        self._build(source, label)

    def _build(self, source: Any, label: str) -> None:
        old = [w for w in self.content.children if w is not self.header and w is not self.attached]
        self.source, self.label = source, label
        if self._unsubscribe_title is not None:
            self._unsubscribe_title()
        # an ACP session's title (as its agent set it) follows its label, and changes with it
        self.header.label = _titled(label, getattr(source, "title", None))
        self._unsubscribe_title = source.subscribe(self._on_event)
        self.controls = TurnControls(source)
        self.checklist = PlanChecklist(source)
        self.content.children = (self.header, self.controls, self.checklist, self.attached)
        for widget in old:
            widget.close()

    def _on_event(self, event: Any) -> None:
        if event.msg.type == "acp_session_title":
            self.header.label = _titled(self.label, event.msg.title)

    def show_attached(self, line: str) -> None:
        """Show ``line`` (``2 cells attached``) under the header; ``""`` hides it."""
        self.attached.value = f'<div class="cx-plan-panel-attached">{html.escape(line)}</div>' if line else ""

    def follow(self, source: Any, *, label: str) -> None:
        """Show ``source`` from now on (no-op if it is already the one shown)."""
        if source is not self.source:
            self._build(source, label)

    def open(self) -> PanelCell:
        """(Re)open the side panel; returns the note the cell should display."""
        sidecar = sidecar_class()
        note = PanelNote(title=TITLE, on_placed=lambda area: self._placed(cell, area))
        cell = PanelCell(note)
        self.cells.append(cell)
        if sidecar is None:
            note.message = NO_SIDECAR.format(title=TITLE)
            note.area = "cell"
            cell.show_inline(self.content)
            return cell
        if self.sidecar is not None:  # the user may have closed its tab: a new one reappears
            self.sidecar.close()
            self.sidecar = None
        return cell

    def _placed(self, cell: PanelCell, area: str) -> None:
        # The sidecar is made once a view says the page has a side area: a Sidecar's view fails
        # to build where there is none (Notebook 7 logged "Could not create a view" on every
        # Run All of the quickstart).
        if area == "cell":
            cell.show_inline(self.content)
        elif self.sidecar is None:
            sidecar = sidecar_class()
            if sidecar is not None:
                self.sidecar = sidecar(title=TITLE)
                self.sidecar.append_display_data(self.content)

    def close(self) -> None:
        if self._unsubscribe_title is not None:
            self._unsubscribe_title()
            self._unsubscribe_title = None
        if self.sidecar is not None:
            self.sidecar.close()
            self.sidecar = None
        for cell in self.cells:
            cell.note.close()
            cell.close()
        self.cells.clear()
        for widget in self.content.children:
            widget.close()
        self.content.close()
