"""Profiles against the pinned binary. The app-server takes no ``--profile`` (Codex: "--profile only
applies to runtime commands"), so the conformance corpus cannot play them: ``codex exec`` can. The
model Codex samples with under ``-p NAME`` is the one ``Config.load(profile=NAME)`` reads, and the
legacy ``profile = "x"`` key is refused by both with the same words."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import codex_nb as cx
from helpers.codex_exec import codex_exec
from codex_nb.testing import ResponsesServer

pytestmark = [pytest.mark.requires_codex, pytest.mark.slow]  # slow: `pytest --slow`, .ci/test


def _exec(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return codex_exec(home, cwd=cwd, prompt="say hi", before=args, clean_env=True, timeout=120)


def test_a_profile_file_sets_the_model_codex_samples_with(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    with ResponsesServer([[cx.assistant_message("hi")]], allow_leftover=True) as srv:
        srv.write_codex_home(home, model="gpt-5.1-codex")
        (home / "fast.config.toml").write_text('model = "gpt-5.1-codex-mini"\n', encoding="utf-8")
        done = _exec(home, work, "-p", "fast")
        assert done.returncode == 0, done.stderr[-2000:]
        sampled = srv.requests[0]["model"]
    ours = cx.Config.load(codex_home=home, cwd=work, profile="fast")
    assert sampled == ours.model_slug == "gpt-5.1-codex-mini"
    assert ours.origins["model"] == f"user {home / 'fast.config.toml'} (profile fast)"


def test_the_legacy_profile_key_is_refused_by_both(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    with ResponsesServer([[cx.assistant_message("hi")]], allow_leftover=True) as srv:
        srv.write_codex_home(home, profile="fast")
        done = _exec(home, work)
    codex_says = 'legacy `profile = "fast"` config is no longer supported; use `--profile fast` with `fast.config.toml`'
    assert done.returncode != 0 and codex_says in done.stderr
    with pytest.raises(cx.ConfigError) as err:
        cx.Config.load(codex_home=home, cwd=work)
    assert codex_says in str(err.value)
