"""Stable ``text/plain`` and ``text/html`` beside every widget view.

anywidget's default repr carries a memory address, which breaks nbval on a re-run,
and viewers without a widget manager (nbconvert, GitHub) would show nothing. Each
widget says what it shows as ``text()`` and ``html()``; this mixin puts both in the
MIME bundle next to the widget view.
"""

from __future__ import annotations

from typing import Any

from .kernel_comm_parent import install as install_comm_parent_fix


class StaticFallback:
    """Mixin for ``anywidget.AnyWidget`` subclasses; list it before ``AnyWidget``."""

    def text(self) -> str:
        """What the widget shows, as plain text: the ``text/plain`` of its MIME bundle, stable
        across runs (no ids, no addresses) so nbval can compare it. Each widget implements it."""
        raise NotImplementedError

    def html(self) -> str:
        """What the widget shows, as static escaped HTML: the ``text/html`` of its MIME bundle, read
        by viewers without a widget manager (nbconvert, GitHub). Each widget implements it."""
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # a shown view will send messages to the kernel: make them safe at a cell's end first
        install_comm_parent_fix()
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]  # AnyWidget's, later in the MRO
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        data = dict(data)
        data["text/plain"] = self.text()
        data["text/html"] = self.html()
        return data, metadata
