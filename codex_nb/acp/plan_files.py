"""The text of a plan an agent names by its file instead of sending it, read only where it is safe.

Gemini CLI (0.61) ends Plan mode with its ``exit_plan_mode`` tool, whose permission request names
the plan's Markdown file (``quirks.plan_file``) and carries none of its text. The path comes from
the agent, so a hostile one could name ``/etc/passwd``, a FIFO that blocks a reader forever, a
device or a file of gigabytes. ``read_plan_file`` reads it only when all of these hold:

* the path is absolute and names a ``.md`` file, and so does the path with every symlink resolved
  (a ``plan.md`` linked to the folder's ``.env`` is not read);
* with every symlink resolved, it lies in the session's folder (Gemini's ``general.plan.directory``
  must lie in the project) or in Gemini's own plans folder of this session,
  ``<GEMINI_CLI_HOME or HOME>/.gemini/tmp/<project>/<session id>/plans/``, the home being the agent
  process's;
* it is a regular file, checked before it is opened (``O_NONBLOCK``, ``O_NOFOLLOW``) and again on
  the open file, whose own path is checked once more where the system says it (``/proc``);
* at most ``MAX_PLAN_BYTES`` are read (the rest is cut, and says so), in a worker thread, never on
  the event loop, and given up after ``READ_TIMEOUT`` seconds (the thread itself ends when its
  read returns: a thread cannot be stopped).

Anything else raises ``PlanFileError`` saying why; the session then asks the request as the
permission question it is.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from pathlib import PurePath

MAX_PLAN_BYTES = 1_000_000
"""Bytes of a plan file read (a plan is a page of Markdown; the rest is cut)."""
MAX_PATH = 4096
READ_TIMEOUT = 5.0
"""Seconds the worker thread may take to read a plan file before the plan is given up."""
SUFFIX = ".md"


class PlanFileError(Exception):
    """Why a plan file was not read."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanFolders:
    """Where one session's plan files may be read from."""

    session_folder: str
    session_id: str
    agent_home: str | None
    """The agent process's home (``GEMINI_CLI_HOME``, else ``HOME``), or None: then only the session
    folder is read from."""

    @classmethod
    def of(cls, *, session_folder: str, session_id: str, env: dict[str, str]) -> PlanFolders:
        home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or None
        return cls(session_folder=session_folder, session_id=session_id, agent_home=home)

    def allows(self, real: str) -> bool:
        """True when the resolved path ``real`` lies where this session's plans may be."""
        path = PurePath(real)
        if _inside(path, self.session_folder):
            return True
        if not self.agent_home:
            return False
        plans_root = os.path.realpath(os.path.join(self.agent_home, ".gemini", "tmp"))
        if not _inside(path, plans_root):
            return False
        parts = path.relative_to(plans_root).parts
        # <project>/<this session's id>/plans/<file>: another session's plans are not this one's
        return len(parts) == 4 and parts[1] == self.session_id and parts[2] == "plans"


def _inside(path: PurePath, folder: str) -> bool:
    root = PurePath(os.path.realpath(folder))
    return path != root and path.is_relative_to(root)


def read_plan_file_now(path: str, folders: PlanFolders) -> str:
    """The plan file's text (blocking: call it in a worker thread); ``PlanFileError`` says why not."""
    if not isinstance(path, str) or not path or len(path) > MAX_PATH or "\x00" in path:
        raise PlanFileError("the path is empty, too long or not text")
    if not os.path.isabs(path):
        raise PlanFileError("the path is not absolute")
    if not path.lower().endswith(SUFFIX):
        raise PlanFileError(f"it is not a Markdown ({SUFFIX}) file")
    try:
        real = os.path.realpath(path, strict=True)
    except OSError as err:
        raise PlanFileError(f"it cannot be found ({type(err).__name__})") from None
    if not real.lower().endswith(SUFFIX):
        raise PlanFileError(f"it is a link to a file that is not a Markdown ({SUFFIX}) file")
    if not folders.allows(real):
        raise PlanFileError("it lies outside the session's folder and the agent's plans folder of this session")
    try:
        if not stat.S_ISREG(os.stat(real).st_mode):
            raise PlanFileError("it is not a regular file")
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        raise PlanFileError(f"it cannot be opened ({type(err).__name__})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PlanFileError("it is not a regular file")
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            opened = real  # no /proc: the checks above stand
        if not opened.lower().endswith(SUFFIX) or not folders.allows(opened):
            # a folder on the way was swapped for a symlink meanwhile
            raise PlanFileError("it lies outside the session's folder and the agent's plans folder of this session")
        chunks: list[bytes] = []
        left = MAX_PLAN_BYTES
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        more = left == 0 and os.read(fd, 1) != b""
    except OSError as err:
        raise PlanFileError(f"it cannot be read ({type(err).__name__})") from None
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    if not text.strip():
        raise PlanFileError("it is empty")
    if more:
        text += f"\n... [the plan file is longer than {MAX_PLAN_BYTES} bytes; the rest is not shown]"
    return text


async def read_plan_file(path: str, folders: PlanFolders, *, timeout: float = READ_TIMEOUT) -> str:
    """``read_plan_file_now`` in a worker thread; ``PlanFileError`` also when it takes over ``timeout`` s."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(read_plan_file_now, path, folders), timeout)
    except asyncio.TimeoutError:
        raise PlanFileError(f"reading it took over {timeout:g} s") from None
