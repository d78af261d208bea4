"""Store each teaching notebook's widgets in their final state, for pages that have no kernel.

A widget output holds the widget view (which needs a live kernel) and the static HTML of the
moment the widget was displayed, usually before the turn it follows has run. The documentation
site shows the notebooks from their stored outputs, so this script runs each notebook in a real
kernel (nbclient), waits until every checklist, Stop control and transcript shows what the cell's
``metadata.codex_nb.expect`` says it shows after Run All, and writes the HTML each widget then
renders (or rendered when a later cell closed it) into that output's
``metadata.codex_nb.final_html``. Nothing else in the notebook changes; nbval does not compare
output metadata. Run it after re-executing a notebook (a test says which notebooks lack it):

    .venv/bin/python .ci/notebook_widgets.py [notebooks/NN_name.ipynb ...]   # default: all
"""

from __future__ import annotations

import html
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DEADLINE_SECONDS = 120.0
# The static HTML's root class for each widget kind the expectations name. The prompts widget,
# the turn view and the panel note say the same things in other words when static, so only these
# kinds are checked.
STATIC_CLASS = {
    "checklist": "codex-plan-static",
    "controls": "cx-turn-controls-static",
    "transcript": "cx-transcript-static",
}
# A checklist's static HTML shows the plan but not the turn's status, which its live view adds
# (the Stop control's static HTML shows that).
LIVE_ONLY = {"checklist": {"running", "completed", "interrupted", "failed"}}

# Runs first: a widget closed by a later cell (``%unload_ext``) keeps the HTML it showed last.
RECORD_CLOSED = """
import ipywidgets as _cx_ipywidgets
_cx_closed_html = {}
_cx_widget_close = _cx_ipywidgets.Widget.close
def _cx_close_and_record(self):
    render = getattr(self, "html", None)
    if callable(render) and getattr(self, "comm", None) is not None:
        _cx_closed_html[self.model_id] = render()
    _cx_widget_close(self)
_cx_ipywidgets.Widget.close = _cx_close_and_record
"""

# Runs after the last cell (and again until the expectations hold): model id -> static HTML.
DUMP = """
import json as _cx_json
from ipywidgets.widgets.widget import _instances as _cx_instances
_cx_final = dict(_cx_closed_html)
for _cx_id, _cx_widget in list(_cx_instances.items()):
    if callable(getattr(_cx_widget, "html", None)):
        _cx_final[_cx_id] = _cx_widget.html()
print(_cx_json.dumps(_cx_final))
"""


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        started = time.monotonic()
        stored = store_final_state(path)
        print(f"{path.name}: {stored} widget outputs stored in {time.monotonic() - started:.0f}s", flush=True)
    return 0


def store_final_state(path: Path) -> int:
    committed = json.loads(path.read_text(encoding="utf-8"))
    views = widget_outputs(committed)
    if not views:
        return 0
    final = run_and_capture(path, committed)
    stored = 0
    for cell_index, output_index, model_id in views_of(final["notebook"]):
        if (cell_index, output_index) not in views:
            raise SystemExit(f"{path.name}: cell {cell_index} shows other outputs when run; re-execute it first")
        if model_id not in final["html"]:
            continue  # a stock ipywidget (a button): no static form; its text/plain stays
        output = committed["cells"][cell_index]["outputs"][output_index]
        output.setdefault("metadata", {}).setdefault("codex_nb", {})["final_html"] = final["html"][model_id]
        stored += 1
    path.write_text(json.dumps(committed, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return stored


def widget_outputs(notebook: dict[str, Any]) -> set[tuple[int, int]]:
    return {(c, o) for c, o, _ in views_of(notebook)}


def views_of(notebook: Any) -> list[tuple[int, int, str]]:
    return [
        (c, o, output["data"][WIDGET_VIEW]["model_id"])
        for c, cell in enumerate(notebook["cells"])
        for o, output in enumerate(cell.get("outputs", []))
        if WIDGET_VIEW in output.get("data", {})
    ]


def run_and_capture(path: Path, committed: dict[str, Any]) -> dict[str, Any]:
    notebook = nbformat.reads(json.dumps(committed), as_version=4)
    # the run's own cells go before and after the notebook's (nbclient writes outputs back by index)
    run = nbformat.reads(json.dumps(committed), as_version=4)
    run.cells = [nbformat.v4.new_code_cell(RECORD_CLOSED), *run.cells, nbformat.v4.new_code_cell(DUMP)]
    last = len(run.cells) - 1
    client = NotebookClient(
        run,
        timeout=300,
        kernel_name="python3",
        store_widget_state=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    with client.setup_kernel():
        for index, cell in enumerate(run.cells[:last]):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        notebook.cells = run.cells[1:last]
        deadline = time.monotonic() + DEADLINE_SECONDS
        while True:
            dump = client.execute_cell(nbformat.v4.new_code_cell(DUMP), last)
            captured = json.loads("".join(o["text"] for o in dump.outputs if o.get("name") == "stdout"))
            unmet = unmet_expectations(notebook, captured)
            if not unmet:
                return {"notebook": notebook, "html": captured}
            if time.monotonic() > deadline:
                raise SystemExit(f"{path.name}: after {DEADLINE_SECONDS:.0f}s the widgets still do not show: {unmet}")
            client.execute_cell(nbformat.v4.new_code_cell("import asyncio\nawait asyncio.sleep(0.5)"), last)


def unmet_expectations(notebook: Any, captured: dict[str, str]) -> list[str]:
    unmet = []
    for c, cell in enumerate(notebook.cells):
        checks = cell.get("metadata", {}).get("codex_nb", {}).get("expect", [])
        shown = [
            captured.get(o["data"][WIDGET_VIEW]["model_id"], "")
            for o in cell.get("outputs", [])
            if WIDGET_VIEW in o.get("data", {})
        ]
        for check in checks:
            root = STATIC_CLASS.get(check["widget"])
            if root is None or "index" not in check:
                continue
            of_kind = [text_of(h) for h in shown if f'class="{root}"' in h]
            text = of_kind[check["index"]] if check["index"] < len(of_kind) else ""
            wanted = set(check.get("text_contains", [])) - LIVE_ONLY.get(check["widget"], set())
            missing = sorted(s for s in wanted if s not in text)
            present = [s for s in check.get("text_absent", []) if s in text]
            if missing or present:
                unmet.append(f"cell {c} {check['widget']}: lacks {missing}, shows {present}")
    return unmet


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
