"""Stable ``text/plain`` and ``text/html`` beside every widget view.

anywidget's default repr carries a memory address, which breaks nbval on a re-run,
and viewers without a widget manager (nbconvert, GitHub) would show nothing. Each
widget says what it shows as ``text()`` and ``html()``; this mixin puts both in the
MIME bundle next to the widget view.
"""

from __future__ import annotations

from typing import Any


class StaticFallback:
    """Mixin for ``anywidget.AnyWidget`` subclasses; list it before ``AnyWidget``."""

    def text(self) -> str:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]  # AnyWidget's, later in the MRO
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
        data = dict(data)
        data["text/plain"] = self.text()
        data["text/html"] = self.html()
        return data, metadata
