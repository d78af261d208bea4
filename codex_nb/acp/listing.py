"""What ``AcpAgent.list_sessions()`` returns: the sessions read, and whether the listing is whole.

An agent pages ``session/list`` with a cursor it alone ends: one that answers huge pages and a
cursor that never ends would be read without bound. The client stops at a row limit or a time
budget, and the result says which, so a table can tell the person it shows part of the list.
It stays a ``list`` of ``{session_id, cwd, title, updated_at}``: what callers already index.
"""

from __future__ import annotations

from typing import Any, Literal

Stopped = Literal["limit", "time", "pages"]


class SessionListing(list[dict[str, Any]]):
    """The sessions an agent listed, in its order, with why the paging stopped early.

    ``stopped`` is None when the agent's last page had no cursor (the list is whole), else
    ``"limit"`` (``limit`` rows were read), ``"time"`` (the time budget was spent) or
    ``"pages"`` (``max_pages`` pages were read). ``pages`` counts the pages read."""

    def __init__(self, rows: list[dict[str, Any]], *, stopped: Stopped | None, pages: int, budget: float) -> None:
        super().__init__(rows)
        self.stopped: Stopped | None = stopped
        self.pages = pages
        self.budget = budget

    @property
    def complete(self) -> bool:
        """True when the agent said there is no further page."""
        return self.stopped is None

    def note(self) -> str:
        """One clause saying why the listing is partial ("" when it is whole)."""
        if self.stopped is None:
            return ""
        why = {
            "limit": f"the first {len(self)} read",
            "time": f"paging stopped after {self.budget:g} s",
            "pages": f"paging stopped after {self.pages} page{'' if self.pages == 1 else 's'}",
        }[self.stopped]
        return f"the agent lists more sessions ({why})"
