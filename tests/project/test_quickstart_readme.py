"""The README's first example is the quickstart notebook: every ```ipython block of the "A first look"
section of the README and of the Getting started page is a cell of notebooks/00_quickstart.ipynb, in
order (nbval runs that)."""

from __future__ import annotations

import json
import re

import pytest
from helpers.paths import ROOT


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_readme_first_example_is_the_quickstart_notebook(page: str) -> None:
    readme = (ROOT / page).read_text(encoding="utf-8")
    section = readme.split("## A first look", 1)[1].split("\n## ", 1)[0]
    blocks = [b.strip() for b in re.findall(r"```ipython\n(.*?)```", section, flags=re.S)]
    notebook = json.loads((ROOT / "notebooks" / "00_quickstart.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(c["source"]).strip() for c in notebook["cells"] if c["cell_type"] == "code"]
    assert len(blocks) >= 4
    positions = [cells.index(block) for block in blocks]  # ValueError names a block the notebook lacks
    assert positions == sorted(positions)


def test_extension_module_is_reachable_lazily() -> None:
    import codex_nb as cx

    assert cx.extension.agent.__module__ == "codex_nb.extension"
