"""An ACP agent started in a real kernel ends with the kernel, shut down or killed.

The agent is a child of the kernel in its own process group; a graceful shutdown runs
the atexit hook (SIGKILL to the group), and a kernel killed outright takes the agent
along through Linux's parent-death signal. Waiting is on a pidfd, not a sleep loop.
"""

from __future__ import annotations

import os
import select
import sys

import pytest

from helpers.kernels import start_kernel

pytestmark = [pytest.mark.kernel, pytest.mark.requires_acp_agent]

# codex-acp does not exit when its stdin closes, so only our own ending can end it here.
START = """
import tempfile, codex_nb as cx
from codex_nb.testing import codex_acp_binary
agent = cx.AcpAgent(codex_acp_binary(), env={"CODEX_HOME": tempfile.mkdtemp(), "OPENAI_API_KEY": "sk-local"})
session = await agent.new_session()
print(agent.pid, type(session).__name__)
"""


def start_agent_in_kernel():
    manager, client = start_kernel()
    chunks: list[str] = []
    reply = client.execute_interactive(
        START,
        timeout=60,
        output_hook=lambda m: chunks.append(
            m["content"].get("text", "") if m["msg_type"] == "stream" else str(m["content"].get("traceback", ""))
        ),
    )
    assert reply["content"]["status"] == "ok", chunks
    pid, answer = "".join(chunks).split(maxsplit=1)
    assert answer.strip() == "AcpSession"
    return manager, client, int(pid)


def wait_gone(pidfd: int) -> bool:
    readable, _, _ = select.select([pidfd], [], [], 30)
    return bool(readable)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pidfd and PDEATHSIG are Linux")
@pytest.mark.parametrize("now", [False, True], ids=["shutdown", "killed"])
def test_the_agent_ends_with_its_kernel(now: bool) -> None:
    manager, client, pid = start_agent_in_kernel()
    pidfd = os.pidfd_open(pid)
    try:
        client.stop_channels()
        manager.shutdown_kernel(now=now)
        assert wait_gone(pidfd), f"ACP agent {pid} outlived its kernel"
    finally:
        os.close(pidfd)
