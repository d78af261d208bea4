"""What the browser benchmarks share: Chromium through Playwright, a JupyterLab notebook, a widget
mounted alone in a blank page, percentiles, and the one-line-a-figure table they print.

Not a benchmark itself (``.ci/bench`` runs ``bench_*.py`` only). The benchmarks that use it
(``bench_bytes_to_pixels.py``, ``bench_timeline_browser.py``, ``bench_long_session_browser.py``)
are skipped with ``CODEX_NB_SKIP_BROWSER=1`` or without ``/usr/bin/chromium``.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _report import bench_line  # next to this file (tests/benchmarks is sys.path[0] for a bench script)

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # codex_nb from this checkout
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/browser/harness.py

FRAME_MS = 16.0
"""One frame at 60 Hz: what a redraw may take without the page skipping a frame."""

VIEWPORT = {"width": 1200, "height": 900}


def skip_reason() -> str | None:
    """Why the browser benchmarks cannot run here, or None."""
    if os.environ.get("CODEX_NB_SKIP_BROWSER") == "1":
        return "CODEX_NB_SKIP_BROWSER=1"
    if not Path("/usr/bin/chromium").exists():
        return "no /usr/bin/chromium"
    return None


@contextmanager
def chromium_page() -> Iterator[Any]:
    """A blank page in headless Chromium, closed with its browser at the end."""
    from playwright.sync_api import sync_playwright

    from browser.harness import launch_chromium

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser.new_page(viewport=VIEWPORT)
        finally:
            browser.close()


@contextmanager
def jupyterlab_notebook(name: str, cells: list[str]) -> Iterator[tuple[Any, Any, Any]]:
    """A real JupyterLab serving a notebook of ``cells``, opened and run in Chromium.

    Yields ``(server, page, notebook)``; the cells are running (or done) when it does.
    """
    from playwright.sync_api import sync_playwright

    from browser.harness import JupyterServer, NotebookPage, launch_chromium, notebook_json

    with JupyterServer.create() as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            server.write_notebook(name, notebook_json(cells))
            notebook = NotebookPage(page, server, name).open()
            notebook.run_all()
            yield server, page, notebook
        finally:
            browser.close()


# A widget's bundle mounted in a blank page against the part of anywidget's model API the views
# use. ``window.__widget.set(patch)`` changes the state and fires "change" as anywidget does after
# a comm update; ``window.__widget.onSend`` may answer what the view sends.
MOUNT = """async ({esm, state}) => {
  const url = URL.createObjectURL(new Blob([esm], {type: "text/javascript"}));
  const widget = (await import(url)).default;
  const current = {...state};
  const listeners = {};
  const host = document.createElement("div");
  document.body.append(host);
  const api = {
    host,
    sent: [],
    onSend: null,
    set: (patch) => {
      Object.assign(current, patch);
      for (const key of Object.keys(patch)) for (const cb of listeners[`change:${key}`] ?? []) cb();
      for (const cb of listeners.change ?? []) cb();
    },
  };
  const model = {
    get: (key) => current[key],
    set: (key, value) => { current[key] = value; },
    save_changes: () => {},
    on: (name, cb) => { (listeners[name] ??= []).push(cb); },
    off: (name, cb) => { listeners[name] = (listeners[name] ?? []).filter((f) => f !== cb); },
    send: (msg) => { api.sent.push(msg); if (api.onSend) api.onSend(msg); },
  };
  await widget.render({model, el: host});
  window.__widget = api;
}"""


def mount_widget(page: Any, widget: Any, state: dict[str, Any]) -> None:
    """Mount ``widget``'s view (its class's ``_esm`` and ``_css``) in ``page`` with ``state``."""
    page.set_content(
        f'<!doctype html><html><head><meta charset="utf-8"><style>{widget._css}</style></head><body></body></html>'
    )
    page.evaluate(MOUNT, {"esm": widget._esm, "state": state})


def synced_state(widget: Any) -> dict[str, Any]:
    """The widget's synced traits as the browser receives them (JSON round trip)."""
    import json

    keys = [k for k in widget.keys if not k.startswith("_")]
    return json.loads(json.dumps(widget.get_state(key=keys)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass
class Figure:
    """One printed line: what was measured, its value, the goal and the in-run baseline."""

    label: str
    value: str
    goal: str = "-"
    baseline: str = "-"
    met: bool | None = None


def table(title: str, figures: list[Figure]) -> str:
    """The benchmark's figures, one a line, then each as the ``BENCH`` line ``.ci/bench``'s summary
    gathers (``_report``)."""
    width = max([44, *(len(f.label) for f in figures)])
    lines = [title, f"  {'figure':{width}} {'value':>17}  {'goal':18} {'baseline':>17}  met?"]
    for f in figures:
        verdict = "" if f.met is None else ("yes" if f.met else "NO")
        lines.append(f"  {f.label:{width}} {f.value:>17}  {f.goal:18} {f.baseline:>17}  {verdict}")
    lines += [bench_line(f.label.strip(), f.value, f.baseline, f.goal, f.met) for f in figures]
    return "\n".join(lines)


def all_met(figures: list[Figure]) -> bool:
    return all(f.met is not False for f in figures)
