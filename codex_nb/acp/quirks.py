"""Where an ACP agent differs from the protocol, mapped here and nowhere else.

Each rule names the agent and the version it was seen in, and a test of the agent suite
(``tests/acp_agents/test_agents.py``) or of this module shows it; a session calls these
functions on the updates it receives, so the widgets see the protocol's meaning:

* Gemini CLI (0.61) echoes a mode switch as an agent message chunk ``[MODE_UPDATE] <mode id>``
  instead of (only) a ``current_mode_update``: it is a mode change, not words of the answer.
* Claude Code (the deprecated claude-code-acp 0.16; claude-agent-acp 0.101 no longer does) starts
  a message with an empty text chunk: nothing to show.
* codex-acp (2.x) reports an approval decided by Codex's automatic reviewer ("Guardian") as a
  ``think`` tool call titled "Guardian Review" with id ``guardian_assessment:<id>``: shown as an
  automatic review, so a person never takes it for their own approval.
* Gemini CLI (0.61) keeps its plan in its ``write_todos`` tool and sends no ACP ``plan``: the call's
  id starts ``write_todos__`` (Gemini names a call ``<tool>__<tool>_<time>_<n>``), its kind is
  ``other`` and its title "Set N todo(s)". 0.61 sends neither ``rawInput`` nor content for it (its
  result display is an object the ACP bridge drops), so the todos never reach a client; when an
  agent does send the arguments, the session shows them as the plan (``mapping.todo_plan``).
* codex-acp (2.6) sends its model's ``request_user_input`` questions as one form elicitation with
  the fixed message "Codex needs your input to continue.", each question a field whose title is
  the question and whose description is its short header, and its deadline in
  ``_meta.codex.autoResolutionMs``: shown as Codex's own question card (``codex_user_input``). A
  question that allows another answer gets a "None of the above" option and an optional note field
  (``_meta.codex.role`` ``user_note``, ``questionId``); claude-agent-acp (0.101) gives each
  AskUserQuestion question an optional "Other" field ``question_<n>_custom``. Such a field is the
  note written under its question on the card (``note_field``), as on Codex's own card.
* Gemini CLI (0.61) ends Plan mode with its ``exit_plan_mode`` tool, whose permission request (kind
  ``other``, no ``rawInput``, no locations) names the plan's file only in its title, "Requesting
  plan approval for: <plans folder>/<file>.md" (``plan_file``); "Allow" (allow_once) leaves Plan
  mode, "Reject" (reject_once) keeps planning (the model is told the call was cancelled).
"""

from __future__ import annotations

import re
from typing import Any

_MODE_UPDATE = re.compile(r"^\[MODE_UPDATE\] (\S+)$")
GUARDIAN_PREFIX = "guardian_assessment:"
TODO_TOOL_PREFIX = "write_todos__"
GUARDIAN_TITLE = "Automatic review (Codex Guardian)"
"""The title an automatic review's tool call is shown with."""


def mode_echo(text: str) -> str | None:
    """The mode id of a Gemini CLI ``[MODE_UPDATE] <id>`` chunk, else None."""
    match = _MODE_UPDATE.match(text)
    return match.group(1) if match else None


def empty_chunk(text: str) -> bool:
    """A text chunk with nothing in it (Claude Code's first chunk): no delta is shown for it."""
    return text == ""


def automatic_review(call_id: str) -> bool:
    """True for codex-acp's tool call of an approval its automatic reviewer decided."""
    return call_id.startswith(GUARDIAN_PREFIX)


def review_title(title: str) -> str:
    """The title of an automatic review's call: what decided, then the agent's own words."""
    return title if title.startswith(GUARDIAN_TITLE) else f"{GUARDIAN_TITLE}: {title}" if title else GUARDIAN_TITLE


def apply_to_tool_call(state: Any) -> None:
    """Name an automatic review's tool call as one (``state`` is the merged ``ToolCallState``)."""
    if automatic_review(state.call_id):
        state.title = review_title(state.title)


def todo_tool(call_id: str) -> bool:
    """True for Gemini CLI's ``write_todos`` call: its arguments are the agent's plan."""
    return call_id.startswith(TODO_TOOL_PREFIX)


PLAN_FILE_TITLE = "Requesting plan approval for: "


def plan_file(title: Any) -> str | None:
    """The plan file a Gemini CLI ``exit_plan_mode`` permission request's title names, else None
    (the path is the agent's word: ``plan_files`` decides whether it may be read)."""
    if not isinstance(title, str) or not title.startswith(PLAN_FILE_TITLE):
        return None
    path = title[len(PLAN_FILE_TITLE) :].strip()
    return path or None


CODEX_USER_INPUT_MESSAGE = "Codex needs your input to continue."


def codex_user_input(message: str, meta: Any) -> tuple[bool, Any]:
    """Whether a form elicitation is codex-acp's ``request_user_input`` (its fixed message and
    ``_meta.codex``), and its ``autoResolutionMs`` (None when it gave none)."""
    codex = meta.get("codex") if isinstance(meta, dict) else None
    if message != CODEX_USER_INPUT_MESSAGE or not isinstance(codex, dict):
        return False, None
    return True, codex.get("autoResolutionMs")


def codex_field_meta(spec: Any) -> dict[str, Any]:
    """A form field's ``_meta.codex`` (codex-acp's facts about the question), or {}."""
    meta = spec.get("_meta") if isinstance(spec, dict) else None
    codex = meta.get("codex") if isinstance(meta, dict) else None
    return codex if isinstance(codex, dict) else {}


def note_field(name: str, spec: Any, selects: set[str]) -> str | None:
    """The select field (one of ``selects``) whose note the free-text field ``name`` holds:
    codex-acp's ``user_note`` field of a question, claude-agent-acp's ``question_<n>_custom``."""
    codex = codex_field_meta(spec)
    if codex.get("role") == "user_note" and codex.get("questionId") in selects:
        return str(codex["questionId"])
    owner = name.removesuffix("_custom")
    if owner != name and owner.startswith("question_") and owner in selects:
        return owner
    return None
