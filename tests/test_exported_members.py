"""The public API: sorted ``__all__``, every name importable, no import-time side effects."""

from __future__ import annotations

import subprocess
import sys

import codex_nb as cx


def test_all_is_sorted_and_complete() -> None:
    assert cx.__all__ == sorted(cx.__all__, key=lambda n: (not n.isupper(), n))
    for name in cx.__all__:
        assert hasattr(cx, name), name


def test_import_has_no_side_effects() -> None:
    code = ("import sys, threading; before = set(sys.modules); import codex_nb; "
            "assert threading.active_count() == 1, threading.enumerate(); "
            "assert 'ipywidgets' not in sys.modules, 'widgets imported eagerly'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "ok", out.stderr
