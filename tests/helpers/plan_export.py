"""A notebook that shows a checklist and a timeline before its turn runs, executed in a real
kernel (nbclient) and exported with nbconvert: the exported page must show the plan as it ended."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

SHOW = """\
import codex_nb as cx
from codex_nb.widgets.timeline import PlanTimelineWidget

session = cx.Session()
checklist = cx.PlanChecklist(session)
timeline = PlanTimelineWidget(session)
display(checklist, timeline)
"""

RUN = """\
def update(*steps):
    return cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})

model = cx.ScriptedModel([
    [update(("Read the report", "in_progress"), ("Fix the <b>parser</b>", "pending"))],
    [update(("Read the report", "completed"), ("Fix the <b>parser</b>", "in_progress"))],
    [update(("Read the report", "completed"), ("Fix the <b>parser</b>", "completed"), ("Final step shipped", "completed"))],
    [cx.assistant_message("done")],
])
result = await session.run_turn("fix it", model=model)
print(result.status)
"""

FINAL_STEPS = ["Read the report", "Fix the <b>parser</b>", "Final step shipped"]


def executed_notebook(*, store_widget_state: bool) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(SHOW), nbformat.v4.new_code_cell(RUN)]
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=store_widget_state).execute()
    return nb


def export_html(
    nb: nbformat.NotebookNode, *, clear_metadata: bool = False, exclude_input: bool = False, theme: str = "light"
) -> str:
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    if clear_metadata:  # drops saved widget state, so each widget's text/html is what the page shows
        config.ClearMetadataPreprocessor.enabled = True
    # exclude_input: the cells' code names the steps too; a test reads only what the outputs show
    body, _ = HTMLExporter(config=config, exclude_input=exclude_input, theme=theme).from_notebook_node(nb)
    return body


def write_exported(tmp: Path) -> dict[str, Path]:
    """Execute and save the notebook, then export it in the light and the dark theme."""
    nb = executed_notebook(store_widget_state=False)
    nbformat.write(nb, tmp / "plan_export.ipynb")
    pages = {}
    for theme in ("light", "dark"):
        pages[theme] = tmp / f"plan_export_{theme}.html"
        pages[theme].write_text(export_html(nb, theme=theme), encoding="utf-8")
    return pages
