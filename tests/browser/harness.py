"""A real JupyterLab (and Notebook 7) in headless Debian Chromium, for widget browser tests.

Reusable by every widget's browser test (what a headless widget test in a real Jupyter needs):

* :class:`JupyterServer` starts ``jupyter lab --no-browser --allow-root`` on a free port
  with a token and its own runtime, config, data, IPython, workspace and root dirs, and
  polls ``/api/status`` until it answers. The app object is exposed in the page
  (``window.jupyterapp``) for both JupyterLab and Notebook 7; the news prompt is off.
* :func:`launch_chromium` launches Debian's ``/usr/bin/chromium`` through Playwright
  (Playwright's own browser download is blocked here).
* :class:`NotebookPage` opens a notebook in JupyterLab (``/lab/tree/...``) or Notebook 7
  (``/notebooks/...``), waits for its kernel, and runs all cells WITHOUT awaiting the
  command's promise (a cell that waits for the widget would otherwise deadlock the test).

Tests synchronise with Playwright's auto-waiting ``expect``; nothing here sleeps except
the bounded ``/api/status`` poll while the server boots.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
DISABLED_EXTENSIONS = {
    "@jupyterlab/apputils-extension:announcements": True,  # the "news?" toast
}


UPSTREAM_PAGE_ERRORS = (
    (
        "notebook",
        "Cannot read properties of undefined (reading 'schema')",
        "/static/notebook/notebook_core.",
        "Notebook 7.6's own bundle, at every page load with any notebook (a plain `1+1` one too): JupyterLab's "
        "shortcuts extension reads the schema of a plugin the setting registry has just reloaded "
        "(@jupyterlab/docmanager-extension:plugin) and finds none; harmless, not codex_nb's",
    ),
    (
        "notebook",
        "Command 'filebrowser:open-path' not registered.",
        "/static/notebook/notebook_core.",
        "Notebook 7.6's own bundle, now and then at load: JupyterLab's file browser restores its path when the "
        "router fires, with a command the notebook page does not register; harmless, not codex_nb's",
    ),
)
"""Page errors the front end raises by itself: (ui, message, where its stack starts, why). Any other
page error is unplaced: a test fails on it, since a widget's own exception need not name codex_nb."""


WIDGET_ERROR_MARKS = ("[anywidget]", "Could not create a view", "Failed to create view", "codex_nb", "codex-")
WIDGET_SCRIPTS = ("@jupyter-widgets", "/anywidget/", "blob:")
"""What marks a console error as the widgets' (its text, or the script that logged it): ours, or
the widget stack's about ours (a view that could not be built, a model that did not start)."""


def gate_cell(label: str) -> str:
    """Kernel code for a button that releases a scripted model's answer: ``gated(items)`` is a
    script entry that waits (on the stand-in server's thread) until the button labelled ``label``
    is clicked, so a test sees the turn running before it lets it go on."""
    return f"""\
import threading
import ipywidgets as widgets

gate = threading.Event()
next_button = widgets.Button(description={label!r})
next_button.on_click(lambda _button: gate.set())

def gated(items):
    def entry(body):  # runs on the scripted server's thread: hold the model's answer
        gate.wait(120)
        gate.clear()
        return items
    return entry
"""


def final_label(source: str, *, prefix: str = "") -> str:
    """Kernel code for ``received``, a label that shows ``prefix`` and the agent's last message once
    a turn of ``source`` (a session or a thread) ends; "model is waiting" until then."""
    return f"""\
received = widgets.Label(value="model is waiting")

def show_final(event):
    if event.msg.type == "turn_complete" and event.msg.last_agent_message:
        received.value = {prefix!r} + event.msg.last_agent_message

{source}.subscribe(show_final)
"""


def chromium_missing_reason() -> str | None:
    """Why browser tests cannot run here, or None. In CI a missing browser is a failure."""
    if Path(CHROMIUM).exists():
        return None
    reason = f"{CHROMIUM} is missing; install Debian's chromium (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise RuntimeError(f"browser tests must run in CI: {reason}")
    return reason


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def notebook_json(cells: list[str], *, markdown: dict[int, str] | None = None) -> dict[str, Any]:
    """An nbformat 4 notebook of code ``cells`` (optionally markdown ones at given indexes)."""
    out: list[dict[str, Any]] = []
    for index, source in enumerate(cells):
        if markdown and index in markdown:
            out.append({"cell_type": "markdown", "metadata": {}, "source": markdown[index]})
        out.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source})
    return {
        "cells": out,
        "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@dataclass
class JupyterServer:
    """A JupyterLab server process with private directories; use as a context manager."""

    base: Path
    port: int
    token: str
    process: subprocess.Popen[bytes] | None = None
    python: str = sys.executable
    """The interpreter that runs JupyterLab (and so the kernel): another venv's for the release test."""

    @classmethod
    def create(cls, python: str = sys.executable) -> JupyterServer:
        base = Path(tempfile.mkdtemp(prefix="codex_nb_lab_"))
        return cls(base=base, port=free_port(), token=secrets.token_hex(16), python=python)

    @property
    def root(self) -> Path:
        return self.base / "root"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.base / "server.log"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("runtime", "config", "data", "ipython", "workspaces", "root"):
            (self.base / name).mkdir(parents=True, exist_ok=True)
        env.update(
            JUPYTER_RUNTIME_DIR=str(self.base / "runtime"),
            JUPYTER_CONFIG_DIR=str(self.base / "config"),
            JUPYTER_DATA_DIR=str(self.base / "data"),
            IPYTHONDIR=str(self.base / "ipython"),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONUNBUFFERED="1",
        )
        env.pop("JUPYTER_PATH", None)
        if self.python != sys.executable:
            # Another venv's server (the release test) runs that venv's codex_nb, not the checkout
            # that tests/conftest.py puts on PYTHONPATH.
            env.pop("PYTHONPATH", None)
        labconfig = self.base / "config" / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": DISABLED_EXTENSIONS}))
        return env

    def start(self, *, timeout: float = 90.0) -> JupyterServer:
        env = self._env()
        command = [
            self.python,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            f"--port={self.port}",
            "--ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            f"--LabApp.workspaces_dir={self.base / 'workspaces'}",
            "--LabApp.expose_app_in_browser=True",
            "--JupyterNotebookApp.expose_app_in_browser=True",
        ]
        # free_port() releases the port before the server binds it: another process (the other
        # pytest run of .ci/test, a kernel's ZMQ sockets) may take it in between. With
        # port_retries=0 the server then exits saying so, and starts again on a new port.
        for attempt in range(3):
            with self.log_path.open("wb") as log:  # the child keeps its own copy of the descriptor
                self.process = subprocess.Popen(
                    command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.root, start_new_session=True
                )
            try:
                self._wait_ready(timeout)
                return self
            except RuntimeError:
                if attempt == 2 or f"The port {self.port} is already in use" not in self.log():
                    self.stop()
                    raise
            except BaseException:
                # a timeout (ours, or pytest-timeout's in a slow fixture) or an interrupt while it
                # boots: __exit__ never runs for a server whose __enter__ did not return, so stop it
                # here (a loaded CI run once left one running after its test had failed)
                self.stop()
                raise
            self.port = free_port()
            command = [f"--port={self.port}" if part.startswith("--port=") else part for part in command]
        raise AssertionError("unreachable")

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}:\n{self.log()}")
            try:
                self.api("GET", "/api/status")
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"jupyter lab did not answer /api/status in {timeout}s:\n{self.log()}") from None
                time.sleep(0.1)  # poll interval while the server boots (no test state depends on it)

    def api(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
        return json.loads(text) if text else None

    def write_notebook(self, name: str, notebook: dict[str, Any]) -> str:
        path = self.root / name
        path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
        return name

    def shutdown_kernels(self) -> None:
        """End every session (and its kernel) so tests do not share kernels."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> JupyterServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium through Playwright, headless."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def upstream_error(ui: str, message: str, stack: str) -> str | None:
    """Why this page error is the front end's own, or None (its first stack frame must be there too)."""
    first = next((line for line in stack.splitlines() if line.strip().startswith("at ")), "")
    for where_ui, known, origin, why in UPSTREAM_PAGE_ERRORS:
        if ui == where_ui and message == known and origin in first:
            return why
    return None


class NotebookPage:
    """A notebook opened in JupyterLab (``ui="lab"``) or Notebook 7 (``ui="notebook"``)."""

    def __init__(self, page: Any, server: JupyterServer, name: str, *, ui: str = "lab") -> None:
        self.page = page
        self.server = server
        self.name = name
        self.ui = ui
        self.console: list[str] = []
        self.page_errors: list[tuple[str, str]] = []
        """(message, stack) of every uncaught exception in the page."""
        self.widget_errors: list[str] = []
        """Console errors of the widget stack (anywidget, the ipywidgets manager, codex_nb's views)."""
        page.on("console", self._console)
        page.on("pageerror", self._page_error)

    def _console(self, msg: Any) -> None:
        self.console.append(f"{msg.type}: {msg.text}")
        if msg.type != "error":
            return
        where = str((msg.location or {}).get("url", ""))
        if any(mark in msg.text for mark in WIDGET_ERROR_MARKS) or any(mark in where for mark in WIDGET_SCRIPTS):
            self.widget_errors.append(f"{msg.text} (at {where})")

    def _page_error(self, err: Any) -> None:
        self.console.append(f"pageerror: {err}")
        self.page_errors.append((str(getattr(err, "message", err)), str(getattr(err, "stack", "") or "")))

    def unplaced_page_errors(self) -> list[str]:
        """Page errors that are not a known one of the front end itself (``UPSTREAM_PAGE_ERRORS``)."""
        return [
            f"{message}\n{stack}" for message, stack in self.page_errors if not upstream_error(self.ui, message, stack)
        ]

    def open(self) -> NotebookPage:
        # `reset`: JupyterLab would otherwise restore the tabs of earlier tests from the saved
        # workspace, and one of them could become the current widget that run_all() runs.
        prefix, query = ("/lab/tree/", "reset&") if self.ui == "lab" else ("/notebooks/", "")
        self.page.goto(f"{self.server.url}{prefix}{self.name}?{query}token={self.server.token}")
        # wait for the app, OUR notebook panel as the current widget and a connected kernel
        self.page.wait_for_function(
            """(name) => {
                const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                const s = w && w.sessionContext;
                return !!(s && s.path && s.path.endsWith(name) && s.session && s.session.kernel
                          && s.session.kernel.connectionStatus === 'connected'
                          && w.content && w.content.widgets && w.content.widgets.length > 0);
            }""",
            arg=self.name,
            timeout=60_000,
        )
        return self

    def run_all(self) -> None:
        """Run every cell; the command's promise is NOT awaited (cells may wait on widgets)."""
        self.page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def screenshot_of(self, locator: Any, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / name
        locator.screenshot(path=str(path))
        return path


def open_notebook(page: Any, server: JupyterServer, name: str, cells: list[str], *, ui: str = "lab") -> NotebookPage:
    """Write ``cells`` as the notebook ``name`` and open it in ``ui`` with its kernel connected."""
    server.write_notebook(name, notebook_json(cells))
    return NotebookPage(page, server, name, ui=ui).open()
