"""``fs/read_text_file`` and ``fs/write_text_file`` confined to one directory.

Every file request is untrusted: the agent names absolute paths, and only regular files
inside the session's working directory are served. The path is walked one component at
a time with ``O_NOFOLLOW`` relative to directory descriptors, so no symbolic link is
followed anywhere below the root (``..``, absolute escapes and ``/proc/self/root``-style
magic links included), and a link swapped in between a check and the open cannot lead
outside either. The decision is made on the opened descriptor (``fstat``), not on the
path: a FIFO, a device or a socket is refused before it is opened and again after, and
opening uses ``O_NONBLOCK`` so even a FIFO swapped in at the last moment cannot block.

The NUL check, the names of the file kinds and the bounded read are the one path guard's
(``codex_nb._files``). The methods here do blocking system calls: callers run them in a worker thread
(``AcpClient`` does), never on the event loop.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath

from .._files import FileRefused, check_name, kind_of, read_at_most

MAX_READ_BYTES = 32 * 1024 * 1024
MAX_WRITE_BYTES = 32 * 1024 * 1024
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class FileAccessError(Exception):
    """Why a file request was refused; ``str()`` is the message the agent receives."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


class ConfinedFiles:
    """Text files under ``root`` (the session cwd), read and written without following links."""

    def __init__(self, root: str | Path) -> None:
        self.given = os.path.abspath(str(root))
        self.root = os.path.realpath(self.given)

    def _parts(self, path: str) -> list[str]:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise FileAccessError(f"path {path!r} must be absolute (ACP file paths are absolute)")
        try:
            check_name(path)
        except FileRefused as refused:
            raise FileAccessError(f"path {path!r}: {refused.reason}") from None
        pure = PurePosixPath(path)
        if ".." in pure.parts:
            raise FileAccessError(f"path {path!r} contains '..'; name the file directly")
        for base in (self.root, self.given):
            try:
                rel = pure.relative_to(base)
            except ValueError:
                continue
            parts = list(rel.parts)
            if not parts:
                raise FileAccessError(f"path {path!r} is the session directory itself, not a file")
            return parts
        raise FileAccessError(
            f"path {path!r} is outside the session directory {self.root}; this client only serves files inside it"
        )

    def _walk(self, path: str, parts: list[str], *, create_dirs: bool) -> int:
        """A descriptor of the directory holding ``parts[-1]`` (caller closes it)."""
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK)
        except OSError as err:
            raise FileAccessError(f"the session directory {self.root} cannot be opened: {err.strerror}") from None
        try:
            for name in parts[:-1]:
                try:
                    nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create_dirs:
                        raise FileAccessError(f"{path}: directory {name!r} does not exist", not_found=True) from None
                    with contextlib.suppress(FileExistsError):  # a concurrent request made it
                        os.mkdir(name, 0o777, dir_fd=fd)
                    try:
                        nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                    except OSError as err:
                        raise self._link_error(path, name, err, fd) from None
                except OSError as err:
                    raise self._link_error(path, name, err, fd) from None
                os.close(fd)
                fd = nxt
            return fd
        except BaseException:
            os.close(fd)
            raise

    @staticmethod
    def _link_error(path: str, name: str, err: OSError, dir_fd: int) -> FileAccessError:
        with contextlib.suppress(OSError):
            if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return FileAccessError(f"{path}: {name!r} is a symbolic link; this client does not follow links")
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            return FileAccessError(
                f"{path}: {name!r} is a symbolic link or not a directory; this client does not follow links"
            )
        return FileAccessError(f"{path}: {err.strerror}")

    def _open(self, path: str, *, write: bool) -> int:
        """The checked descriptor of the regular file ``path`` (write: created if missing)."""
        parts = self._parts(path)
        dir_fd = self._walk(path, parts, create_dirs=write)
        name = parts[-1]
        try:
            try:
                before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                if not write:
                    raise FileAccessError(f"{path}: no such file", not_found=True) from None
                before = None
            except OSError as err:
                raise self._link_error(path, name, err, dir_fd) from None
            if before is not None:
                _check_kind(path, before)
            flags = _FILE_FLAGS | (os.O_WRONLY if write else os.O_RDONLY)
            if before is None:
                flags |= os.O_CREAT | os.O_EXCL  # a name that appeared meanwhile is not ours to follow
            try:
                fd = os.open(name, flags, 0o666, dir_fd=dir_fd)
            except FileNotFoundError:
                raise FileAccessError(f"{path}: no such file", not_found=True) from None
            except FileExistsError:
                raise FileAccessError(f"{path}: the file appeared while it was being created; try again") from None
            except OSError as err:
                if err.errno == errno.ENXIO:  # O_NONBLOCK write open of a FIFO with no reader
                    raise FileAccessError(
                        f"{path}: not a regular file (a FIFO or device); this client only serves regular files"
                    ) from None
                raise self._link_error(path, name, err, dir_fd) from None
        finally:
            os.close(dir_fd)
        try:
            # Decide on what was opened, not on the name: it may have been swapped since the stat.
            after = os.fstat(fd)
            _check_kind(path, after)
            if before is not None and (before.st_dev, before.st_ino) != (after.st_dev, after.st_ino):
                raise FileAccessError(f"{path}: the file was replaced while it was being opened; try again")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        """The text of ``path`` (lines ``line``.. ``line + limit - 1`` if given). Blocking: run in a thread."""
        if line is not None and line < 1:
            raise FileAccessError(f"line must be 1 or more (lines are numbered from 1), got {line}")
        if limit is not None and limit < 0:
            raise FileAccessError(f"limit must not be negative, got {limit}")
        try:
            fd = self._open(path, write=False)
            try:
                if os.fstat(fd).st_size > MAX_READ_BYTES:
                    raise FileAccessError(
                        f"{path}: larger than {MAX_READ_BYTES} bytes; this client serves smaller files only"
                    )
                data = read_at_most(fd, MAX_READ_BYTES + 1)
            finally:
                os.close(fd)
        except OSError as err:  # EIO, EACCES, ...: the agent gets the reason, not an internal error
            raise FileAccessError(f"{path}: {err.strerror or err}") from None
        if len(data) > MAX_READ_BYTES:
            raise FileAccessError(f"{path}: larger than {MAX_READ_BYTES} bytes; this client serves smaller files only")
        text = data.decode("utf-8", errors="replace")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = (line or 1) - 1
        end = None if limit is None else start + limit
        return "".join(lines[start:end])

    def write(self, path: str, content: str) -> None:
        """Replace the text of ``path`` (created, with missing directories). Blocking: run in a thread."""
        if not isinstance(content, str):
            raise FileAccessError(f"{path}: content must be text, got {type(content).__name__}")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as err:
            raise FileAccessError(
                f"{path}: the content is not valid Unicode text ({err.reason} at character {err.start})"
            ) from None
        if len(data) > MAX_WRITE_BYTES:
            raise FileAccessError(
                f"{path}: {len(data)} bytes is more than this client writes at once ({MAX_WRITE_BYTES} bytes)"
            )
        try:
            fd = self._open(path, write=True)
            try:
                # Truncated only now, after the descriptor was checked: O_TRUNC at open would have
                # emptied a hard-linked or swapped-in file before it could be refused.
                os.ftruncate(fd, 0)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        except OSError as err:  # ENOSPC, EACCES, ...: the agent gets the reason, not an internal error
            raise FileAccessError(f"{path}: {err.strerror or err}") from None


def _check_kind(path: str, info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise FileAccessError(
            f"{path}: {os.path.basename(path)!r} is a symbolic link; this client does not follow links"
        )
    if not stat.S_ISREG(info.st_mode):
        raise FileAccessError(
            f"{path}: not a regular file ({kind_of(info.st_mode)}); this client only serves regular files"
        )
    # A hard link is a second name for the same file, and nothing about the name inside the
    # session directory tells whether the other name lies outside it (a link to ~/.ssh/id_rsa
    # looks like any file). The only confinement that holds is to refuse files with more than
    # one name; copy such a file (cp) to give the agent a file of its own.
    if info.st_nlink > 1:
        raise FileAccessError(
            f"{path}: the file has {info.st_nlink} hard links, and another name may be outside "
            f"the session directory; this client only serves files with one link (copy it)"
        )
