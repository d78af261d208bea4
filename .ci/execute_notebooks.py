"""Re-execute teaching notebooks and store their outputs as nbval compares them.

Runs each notebook in a real kernel with nbclient, which applies the in-place display updates
codex_nb's widgets send when their turn ends, so every widget output stores its final
``text/plain`` and ``text/html`` (what GitHub, nbviewer, nbconvert and the docs site show).
It stores no widget state (``metadata.widgets``: a 15 KB notebook grew to 215 KB with it, and
JupyterLab would restore views no kernel backs) and no cell timings, and writes the JSON as the
repository keeps it. Run it after changing a notebook, then its nbval test:

    .venv/bin/python .ci/execute_notebooks.py notebooks/NN_name.ipynb [...]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

# The kernels import this checkout's codex_nb, not whichever one the venv's editable install points
# at (a second git worktree shares the venv).
_CHECKOUT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_CHECKOUT, os.environ.get("PYTHONPATH", "")) if p)


def execute(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        store_widget_state=False,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    notebook.metadata.pop("widgets", None)
    text = json.dumps(json.loads(nbformat.writes(notebook)), ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        started = time.monotonic()
        execute(Path(name))
        print(f"{name}: executed in {time.monotonic() - started:.0f} s, {Path(name).stat().st_size} bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
