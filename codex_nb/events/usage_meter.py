"""``UsageMeter``: a source's token usage folded from its ``token_count`` events, in one place.

Every source sends its usage as ``token_count`` (codex_nb's runtime, the real Codex's
``thread/tokenUsage/updated``, an ACP agent's ``usage_update`` and prompt usage), but each
reports different figures, and none says "this turn" directly: Codex's figures are the thread's
running total and the last response's usage. The turn controls' meter and the plan timeline
both need the same four figures worked out the same way, so the fold lives here, below both.
"""

from __future__ import annotations

from typing import Any

from ..protocol.model_stream import TokenUsageInfo

FIGURES = ("context_used", "context_window", "turn", "total")
"""The meter's figures: tokens in the context window, its size, this turn's tokens, the thread's."""


class UsageMeter:
    """The latest figures of one source, each present only once reported (never a made-up zero).

    ``context_used`` is the last response's ``total_tokens`` (what Codex counts as the tokens in
    the context window), ``context_window`` the model's window, ``total`` the thread's running
    total, and ``turn`` that total less what it was when the turn started.
    """

    def __init__(self, total: int | None = None) -> None:
        """``total``: the thread's total before this meter existed (a later view of the same thread)."""
        self.figures: dict[str, int] = {} if total is None else {"total": total}
        self._turn_base: int | None = None

    def start_turn(self) -> None:
        """A turn started: its figure starts from the total so far, and the last turn's is dropped."""
        self._turn_base = self.figures.get("total", 0)
        self.figures.pop("turn", None)

    def count(self, info: TokenUsageInfo | None) -> bool:
        """Fold one ``token_count``'s ``info`` in (only the figures it reports); True if any changed."""
        if info is None:
            return False
        before = dict(self.figures)
        if info.last_token_usage is not None:
            self.figures["context_used"] = info.last_token_usage.total_tokens
        if info.model_context_window is not None:
            self.figures["context_window"] = info.model_context_window
        if info.total_token_usage is not None:
            self.figures["total"] = info.total_token_usage.total_tokens
            if self._turn_base is not None:
                self.figures["turn"] = max(self.figures["total"] - self._turn_base, 0)
        return self.figures != before

    def snapshot(self) -> dict[str, Any]:
        """A copy of the figures (for a synced trait or an export)."""
        return dict(self.figures)


__all__ = ["FIGURES", "UsageMeter"]
