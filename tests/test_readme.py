"""README snippets are executable documentation: run every ```python block."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_snippets() -> None:
    assert python_blocks()


def test_readme_snippets_run() -> None:
    for block in python_blocks():
        out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
