"""The supervisor between the kernel and each program codex_nb starts (Linux only).

Run as ``python -I -S supervisor.py STATUS_FD PARENT_PID -- PROGRAM ARGS...``; it imports
nothing from codex_nb. It makes itself a child subreaper, so every process the program
starts stays below it even after calling ``setsid`` and losing its parent (Codex runs each
shell command that way, and a command that ignores SIGHUP would otherwise outlive its
agent). It starts the program in its own process group, writes the program's pid (or
``E <errno>``) to STATUS_FD, lets go of the pipes, and then:

- reaps every descendant that reparents to it;
- on SIGTERM, sends SIGTERM (and SIGCONT, so a stopped process can act on it) to every
  descendant;
- on SIGUSR1, and when its parent thread dies (``PR_SET_PDEATHSIG``), SIGKILLs every
  descendant;
- when the program exits, SIGKILLs whatever it left behind and exits with the program's
  status (a signal death is re-raised on itself), so the kernel reads it as its own.

Why a separate process rather than making the kernel the subreaper: orphans of any code
in the kernel (a user's ``Popen("server &")``) would reparent to the kernel and stay
zombies, since asyncio and ``subprocess`` only wait for the pids they started, and
reaping with ``waitpid(-1)`` there would steal other code's exit statuses. Here the
supervisor is the only waiter of its own tree.

It starts on every spawn, so it imports only what the interpreter has at hand: ``_signal``
rather than ``signal`` (which imports ``enum``, ``functools`` and ``collections``) and
``_ctypes`` rather than ``ctypes`` for the one ``prctl`` call. On a loaded machine those two
imports were most of the time a spawn waited for the program's pid; what is left is the
interpreter's own start.
"""

from __future__ import annotations

import os
import sys

# the C module: ``signal`` would import enum (and functools, collections); typeshed has no stub for it
import _signal as signal  # type: ignore[import-not-found]

TYPE_CHECKING = False  # typing is not imported here (``-I -S``, a fast start); mypy reads this name as typing's
if TYPE_CHECKING:
    from collections.abc import Callable

    Prctl = Callable[[int, int, int, int, int], int]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
HANDLED = {signal.SIGCHLD, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP, signal.SIGINT}
MAX_KILL_PASSES = 500


def _prctl() -> Prctl:
    """libc's ``prctl(int, unsigned long x4)``, bound through ``_ctypes`` (``ctypes`` costs a spawn
    tens of milliseconds of imports); ``ctypes`` where ``_ctypes`` lacks what is used here."""
    try:
        return _prctl_from_ctypes_core()
    except (ImportError, AttributeError, OSError, TypeError):
        return _prctl_from_ctypes()


def _prctl_from_ctypes_core() -> Prctl:
    # typeshed types _SimpleCData as generic, which it is not at run time (a subscript raises)
    import _ctypes

    class c_int(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "i"

    class c_ulong(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "L"

    class Function(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = c_int

    # dlopen(NULL) is the program itself, libc included; typeshed wants a path
    prctl = Function(_ctypes.dlsym(_ctypes.dlopen(None), "prctl"))  # type: ignore[arg-type]
    prctl.argtypes = [c_int, c_ulong, c_ulong, c_ulong, c_ulong]
    return prctl


def _prctl_from_ctypes() -> Prctl:
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return prctl


def descendants(root: int) -> list[tuple[int, bytes]]:
    """(pid, state) of every process whose parent chain reaches ``root``, read from /proc."""
    children: dict[int, list[tuple[int, bytes]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append((int(name), fields[0]))
    found: list[tuple[int, bytes]] = []
    todo = [root]
    while todo:
        for entry in children.get(todo.pop(), ()):
            found.append(entry)
            todo.append(entry[0])
    return found


class Supervisor:
    def __init__(self, program: int) -> None:
        self.program = program
        self.status: int | None = None
        self.me = os.getpid()

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.program:
                self.status = status

    def signal_all(self, sig: int) -> None:
        for pid, state in descendants(self.me):
            if state not in (b"Z", b"X"):
                for each in (sig, signal.SIGCONT) if sig == signal.SIGTERM else (sig,):
                    try:
                        os.kill(pid, each)
                    except (ProcessLookupError, PermissionError):
                        pass

    def kill_all(self) -> None:
        """SIGKILL every live descendant until none is left (a process forking meanwhile is
        caught on the next pass: its child reparents here when it dies)."""
        for _ in range(MAX_KILL_PASSES):
            alive = [pid for pid, state in descendants(self.me) if state not in (b"Z", b"X")]
            if not alive:
                break
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            signal.sigtimedwait({signal.SIGCHLD}, 0.02)
            self.reap()
        self.reap()

    def run(self) -> None:
        while self.status is None:
            info = signal.sigwaitinfo(HANDLED)
            if info.si_signo == signal.SIGTERM:
                self.signal_all(signal.SIGTERM)
            elif info.si_signo == signal.SIGUSR1:
                self.kill_all()
            self.reap()
        self.kill_all()
        while True:  # the last zombies, then nothing is left below us
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        exit_like(self.status)


def exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a SIGSEGV re-raised here dumps no core
            signal.signal(sig, signal.SIG_DFL)
        except (ValueError, OSError):
            pass
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def start(program: list[str], old_mask: set[int], prctl: Prctl) -> int:
    """Fork and exec the program in its own process group; raise the exec error here."""
    err_r, err_w = os.pipe()  # close-on-exec: EOF means the exec succeeded
    pid = os.fork()
    if pid == 0:
        try:
            os.close(err_r)
            os.setpgid(0, 0)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
            for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; a program expects them default
                signal.signal(sig, signal.SIG_DFL)
            os.execvp(program[0], program)
        except OSError as err:
            os.write(err_w, str(err.errno or 0).encode())
        finally:
            os._exit(127)
    os.close(err_w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first, or already exec'd
    chunks = []
    while chunk := os.read(err_r, 64):
        chunks.append(chunk)
    os.close(err_r)
    if chunks:
        os.waitpid(pid, 0)
        raise OSError(int(b"".join(chunks) or b"0"), "exec failed")
    return pid


def main(argv: list[str]) -> None:
    status_fd, parent = int(argv[1]), int(argv[2])
    program = argv[4:]
    prctl = _prctl()
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    if os.getppid() != parent:  # the kernel died before PDEATHSIG was armed
        os._exit(1)
    try:
        pid = start(program, old_mask, prctl)
    except OSError as err:
        os.write(status_fd, f"E {err.errno}\n".encode())
        os._exit(127)
    os.write(status_fd, f"{pid}\n".encode())
    os.close(status_fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the pipes are the program's: their EOF must follow its end, not ours
        os.dup2(devnull, fd)
    os.close(devnull)
    Supervisor(pid).run()


if __name__ == "__main__":
    main(sys.argv)
