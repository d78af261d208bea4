"""What a packager and a first-time user of ``.ci/lab`` see: license, URLs, packages, no news toast."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_the_metadata_names_ships():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert project["urls"] and all(url.startswith("https://") for url in project["urls"].values())


def test_every_package_directory_is_a_regular_package():
    for directory in (ROOT / "codex_nb").rglob("*"):
        if directory.is_dir() and any(directory.glob("*.py")):
            assert (directory / "__init__.py").exists(), f"{directory.relative_to(ROOT)} has no __init__.py"


def test_ci_lab_turns_off_the_jupyterlab_news_toast(tmp_path):
    """Run the part of .ci/lab before `exec jupyter lab` in a scratch copy and read what it wrote."""
    script = (ROOT / ".ci" / "lab").read_text()
    head = script[script.index("# No \"Would you like"):script.index("extra=()")]
    subprocess.run(["bash", "-c", head], cwd=tmp_path, check=True, env={**os.environ})
    overrides = json.loads((tmp_path / ".venv/share/jupyter/lab/settings/overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
