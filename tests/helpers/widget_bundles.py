"""The widget ES module bundles as a browser loads them: each must import as one valid module."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from codex_nb.widgets._static import bundle_esm


def default_export_type(entry: str, tmp_path: Path) -> str:
    """``typeof`` the bundle's ``default.render``, imported by node (a SyntaxError fails the import)."""
    node = shutil.which("node")
    assert node, "node is required for the widget JS checks"
    path = tmp_path / f"{Path(entry).stem}.mjs"
    path.write_text(bundle_esm(entry), encoding="utf-8")
    script = f"const m = await import({json.dumps(path.as_uri())}); console.log(typeof m.default.render);"
    out = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return out.stdout.strip()
