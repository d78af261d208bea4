"""The installed distribution's version, from its metadata (pyproject.toml is the one source)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("codex_nb")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"
