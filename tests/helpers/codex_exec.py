"""``codex exec`` against a local Responses server: the pinned binary runs one prompt offline.

Tests that compare what Codex sends (tool specs, inputs, a profile's model) run the binary this
way; it starts in its own process group, which is ended whatever happens, so a hung binary never
outlives its test.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from codex_nb.testing import codex_binary


def codex_exec(
    home: Path,
    *,
    cwd: Path,
    prompt: str = "go",
    before: Sequence[str] = (),
    json_events: bool = False,
    clean_env: bool = False,
    timeout: float = 240,
) -> subprocess.CompletedProcess[str]:
    """Run ``codex [before...] exec [--json] --skip-git-repo-check -C cwd prompt`` with ``CODEX_HOME=home``.

    ``clean_env`` drops the caller's ``CODEX_*`` / ``OPENAI_*`` variables (a developer's own setup
    must not reach a test that reads config layers).
    """
    env = dict(os.environ)
    if clean_env:
        env = {k: v for k, v in env.items() if not k.startswith(("CODEX_", "OPENAI_"))}
        env.update(RUST_LOG="error", NO_COLOR="1")
    env.update(CODEX_HOME=str(home), OPENAI_API_KEY="sk-local-test")
    command = [str(codex_binary()), *before, "exec", *(["--json"] if json_events else []), "--skip-git-repo-check"]
    command += ["-C", str(cwd), prompt]
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)
