"""The approvals record: every question, approval and elicitation of a session, with its
answer, who gave it and when, so a reviewer can see afterwards what was allowed.

The broker (``requests.FrontendRequests``) adds one ``ApprovalRecord`` when a request
settles; sources expose the list as ``session.approvals``. ``answered_by`` is ``widget``
(a person in the prompts widget), ``python`` (code called ``answer``), ``policy`` (an
answer policy; ``policy`` names it), ``timeout`` (``autoResolutionMs`` elapsed),
``nobody`` (no frontend, no policy: declined), ``cancelled`` (the turn ended first),
``replaced`` (a newer question of the turn) or ``server`` (the asking server closed it).
``Approvals.save(path)`` writes the record into a notebook file's metadata
(``metadata.codex_nb.approvals``); a displayed prompts widget also carries it in its
state, which JupyterLab saves into the notebook with the widget state.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, overload


MAX_RECORDS = 10_000
"""Records kept per session (the oldest go first: a runaway loop must not grow memory)."""
METADATA_KEY = "codex_nb"


@dataclass(kw_only=True, frozen=True)
class ApprovalRecord:
    """One settled request: what was asked, the answer sent, who answered and when."""

    request_id: str
    kind: str
    """``user_input``, ``permissions``, ``approval`` or ``elicitation``."""
    turn_id: str
    call_id: str
    summary: str
    """One line saying what was asked (the command, the files, the questions, the URL...)."""
    request: dict[str, Any]
    """The request event as shown (its wire form)."""
    answer: Any
    """The answer as sent (``None`` when nothing was answered)."""
    outcome: str
    answered_by: str
    policy: str | None
    """The answer policy that answered (``answered_by == "policy"``)."""
    asked_at: datetime.datetime
    answered_at: datetime.datetime

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["asked_at"] = self.asked_at.isoformat()
        data["answered_at"] = self.answered_at.isoformat()
        return data

    def line(self) -> str:
        """``approval: run: ls -- approve (widget)``: one line for a reprs and reports."""
        answer = _answer_text(self.answer)
        who = self.answered_by if self.policy is None else f"policy {self.policy}"
        return f"{self.kind}: {self.summary} -- {answer or self.outcome} ({who})"


def _answer_text(answer: Any) -> str:
    if not isinstance(answer, dict):
        return "" if answer is None else str(answer)
    if "decision" in answer:
        return str(answer["decision"])
    if "action" in answer:
        content = answer.get("content")
        return str(answer["action"]) + (f" {json.dumps(content, sort_keys=True)[:200]}" if content else "")
    if "answers" in answer:
        parts = [f"{qid}={'/'.join(a.get('answers', []))}" for qid, a in answer["answers"].items()]
        return ", ".join(parts) or "(no answer)"
    if "scope" in answer:
        return f"granted {json.dumps(answer.get('permissions'), sort_keys=True)[:200]} for the {answer['scope']}"
    return json.dumps(answer, sort_keys=True)[:200]


class Approvals(Sequence[ApprovalRecord]):
    """The records of one session, oldest first (a read-only sequence)."""

    def __init__(self) -> None:
        self._records: list[ApprovalRecord] = []

    def add(self, record: ApprovalRecord) -> None:
        self._records.append(record)
        if len(self._records) > MAX_RECORDS:
            del self._records[: len(self._records) - MAX_RECORDS]

    @overload
    def __getitem__(self, index: int) -> ApprovalRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[ApprovalRecord]: ...
    def __getitem__(self, index: int | slice) -> ApprovalRecord | Sequence[ApprovalRecord]:
        return self._records[index]

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[ApprovalRecord]:
        return iter(list(self._records))

    def to_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self._records]

    def __repr__(self) -> str:
        if not self._records:
            return "Approvals: none yet"
        return "\n".join([f"Approvals: {len(self._records)}", *(f"  {r.line()}" for r in self._records)])

    def save(self, notebook: str | Path) -> Path:
        """Write the record into ``notebook``'s metadata (``metadata.codex_nb.approvals``).

        For a notebook that is not open in an editor (papermill, nbval, a script's output):
        an open JupyterLab would see the file change on disk. The file must be a notebook."""
        path = Path(notebook)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise ValueError(f"cannot read the notebook {path}: {err}") from None
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise ValueError(f"{path} is not a Jupyter notebook (no 'cells' list)")
        metadata = data.setdefault("metadata", {})
        section = metadata.setdefault(METADATA_KEY, {})
        if not isinstance(section, dict):
            raise ValueError(f"{path}: metadata.{METADATA_KEY} is not an object")
        section["approvals"] = self.to_json()
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path


def summarize(kind: str, msg: dict[str, Any]) -> str:
    """One line saying what a request asks (its wire form)."""
    if kind == "approval":
        if msg.get("type") == "exec_approval_request":
            return f"run: {msg.get('command')}"
        return "change: " + ", ".join(str(c.get("path")) for c in msg.get("changes") or [])
    if kind == "user_input":
        return "; ".join(f"{q['header']}: {q['question']}" for q in msg.get("questions") or []) or "(no questions)"
    if kind == "elicitation":
        if msg.get("mode") == "url":
            return f"{msg.get('server_name')}: open {msg.get('url')} ({msg.get('domain')})"
        return f"{msg.get('server_name')}: {msg.get('message')}"
    perms = msg.get("permissions") or {}
    parts = [
        f"{access} {', '.join(paths)}"
        for access, paths in (perms.get("file_system") or {}).items()
        if isinstance(paths, list) and paths and isinstance(paths[0], str)
    ]
    if perms.get("network"):
        parts.append("network")
    return "; ".join(parts) or "permissions"
