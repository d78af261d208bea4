"""hatchling build hook (pyproject.toml [tool.hatch.build.hooks.custom]): a wheel built from a
checkout with js/'s npm packages installed carries a bundle freshly built from js/.

Built from an sdist, or from a checkout without node or js/node_modules (a user's
``pip install`` of the sdist), the hook leaves the committed codex_nb/widgets/static/ as it is:
the bundle is committed and shipped in the sdist precisely so that no install needs node.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class WidgetBundleHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        # An editable install loads the bundle from the checkout, which .ci/setup keeps current.
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        node = shutil.which("node")
        if node is None or not (root / "js" / "node_modules" / "esbuild").is_dir():
            self.app.display_info("[codex_nb] widget bundle: shipping codex_nb/widgets/static/ as committed")
            return
        subprocess.run([node, str(root / "js" / "build.mjs")], cwd=root, check=True)
