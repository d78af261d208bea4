"""``%%codex --source VAR --option NAME=VALUE``: an ACP agent's options set from the magic before its
prompt, against the pinned codex-acp run offline on its stand-in (the agent's next request to its
model says it is in Plan mode), and every wrong ``--option`` as a one-line ``UsageError``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension

from test_send_cells_real_acp import TIMEOUT, RealAgent

PLAN_MARKER = "<collaboration_mode># Plan Mode"


@pytest.mark.slow
@pytest.mark.requires_acp_agent("codex-acp")
async def test_option_sets_codex_acp_plan_mode_before_the_prompt(shell: InteractiveShell, tmp_path: Path) -> None:
    state = extension.agent(shell)
    assert state is not None
    async with RealAgent("codex-acp", [[cx.assistant_message("Here is a plan.")]], tmp_path) as real:
        session = await real.session()
        shell.user_ns["acp_session"] = session
        with pytest.raises(UsageError) as wrong:
            shell.run_cell_magic("codex", "--source acp_session --option collaboration_mode=review", "Plan it")
        assert str(wrong.value) == (
            "the ACP agent's option 'collaboration_mode' (Collaboration mode) has no value 'review'; "
            "its values are ['default', 'plan']"
        )
        with pytest.raises(UsageError, match=r"--option 'collaboration_mode': give NAME=VALUE"):
            shell.run_cell_magic("codex", "--source acp_session --option collaboration_mode", "Plan it")
        assert session.options["collaboration_mode"].current == "default" and not real.server.requests
        shell.run_cell_magic("codex", "--source acp_session --option collaboration_mode=plan --out turn", "Plan it")
        result = await asyncio.wait_for(shell.user_ns["turn"], TIMEOUT)
        assert (result.status, result.last_agent_message) == ("completed", "Here is a plan.")
        assert session.options["collaboration_mode"].current == "plan"
        real.server.check()
        (request,) = real.server.requests
    assert PLAN_MARKER in json.dumps(request)


def test_option_on_a_source_without_options_is_refused(shell: InteractiveShell) -> None:
    shell.user_ns["plain"] = cx.Session()
    with pytest.raises(UsageError) as refused:
        shell.run_cell_magic("codex", "--source plain --option collaboration_mode=plan", "Plan it")
    message: Any = str(refused.value)
    assert "offers no agent options" in message and "--mode plan is Plan mode here" in message
