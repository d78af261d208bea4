"""The release candidate as a user gets it: the wheel and sdist ``python -m build`` makes from this
checkout, and a venv holding nothing but that wheel (with the README's extras) and nbval.

Building takes 10-20 s; the venv 90-200 s on the loaded 2-core machine (pip installs from the
package index and the developer's pip cache). The venv is kept outside the checkout (in the temp
folder, one folder per checkout) under the wheel's sha256 (hatchling's wheels are reproducible:
the same sources give the same bytes), so the project tests and the browser test, two pytest runs
of ``.ci/test``, share one, and a run on unchanged sources reuses it; a changed wheel gets a new
venv and the old one is removed. ``.ci/test`` runs those two pytest runs at the same time: a lock
file makes the second wait for the venv the first is making, instead of removing it half made.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from helpers.paths import ROOT

VENVS = Path(tempfile.gettempdir()) / f"codex_nb-release-venv-{hashlib.sha256(bytes(ROOT)).hexdigest()[:8]}"
# The README's two install lines; the other extras' lists are checked in the wheel's metadata
# (a dry-run resolve of them took 55 s more) and installed by .ci/setup from the same pyproject.toml.
INSTALLED_EXTRAS = "lab,model"


def run(command: list[str | Path], *, cwd: Path, timeout: float = 600) -> str:
    """Run ``command``; on failure the assertion shows its whole output."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def clean_env() -> dict[str, str]:
    """The environment without anything that would put this checkout or its venv on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    # .ci/test gives the tests a HOME of their own; pip keeps using the developer's cache
    developer_home = env.get("CODEX_NB_DEVELOPER_HOME")
    if developer_home and "PIP_CACHE_DIR" not in env:
        env["PIP_CACHE_DIR"] = str(Path(developer_home) / ".cache" / "pip")
    return env


def build_dist(out: Path) -> tuple[Path, Path]:
    """``python -m build``: the sdist, then the wheel built from it (as a user's pip would)."""
    run([sys.executable, "-m", "build", "--outdir", out, ROOT], cwd=out.parent, timeout=300)
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(out.iterdir())
    return wheels[0], sdists[0]


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def release_venv(wheel: Path) -> Path:
    """A venv with ``wheel[lab,model]`` and nbval, made once per wheel (see the module docstring)."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()[:16]
    venv = VENVS / digest
    if (venv / ".complete").is_file():
        return venv
    VENVS.mkdir(parents=True, exist_ok=True)
    with (VENVS.parent / f"{VENVS.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        return _make_venv(wheel, venv)


def _make_venv(wheel: Path, venv: Path) -> Path:
    if (venv / ".complete").is_file():  # made by the other pytest run while this one waited
        return venv
    for old in VENVS.iterdir():
        shutil.rmtree(old, ignore_errors=True)
    # The base interpreter, not this checkout's .venv, creates it: nothing of ours is inherited.
    base = getattr(sys, "_base_executable", sys.executable)
    run([base, "-m", "venv", venv], cwd=VENVS, timeout=120)
    python = venv_python(venv)
    # --no-compile: Python compiles what the tests import, not every module of JupyterLab's tree
    install = [python, "-m", "pip", "install", "-q", "--no-compile", f"{wheel}[{INSTALLED_EXTRAS}]", "nbval"]
    run(install, cwd=VENVS, timeout=900)
    (venv / ".complete").write_text(wheel.name + "\n")
    return venv
