"""``fs/read_text_file`` and ``fs/write_text_file`` confined to one directory.

The agent names absolute paths; only paths inside the session's working directory
are served, and no symbolic link is followed anywhere below it: the path is walked
one component at a time with ``O_NOFOLLOW`` relative to directory descriptors, so a
link swapped in between a check and the open cannot lead outside either.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path, PurePosixPath

MAX_READ_BYTES = 32 * 1024 * 1024


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
        raise FileAccessError(f"path {path!r} is outside the session directory {self.root}; this client only "
                              f"serves files inside it")

    def _walk(self, path: str, parts: list[str], *, create_dirs: bool) -> int:
        """A descriptor of the directory holding ``parts[-1]`` (caller closes it)."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in parts[:-1]:
                try:
                    nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except FileNotFoundError:
                    if not create_dirs:
                        raise FileAccessError(f"{path}: directory {name!r} does not exist", not_found=True) from None
                    os.mkdir(name, 0o777, dir_fd=fd)
                    nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
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
            if _is_link(name, dir_fd):
                return FileAccessError(f"{path}: {name!r} is a symbolic link; this client does not follow links")
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            return FileAccessError(f"{path}: {name!r} is a symbolic link or not a directory; this client does not "
                                   f"follow links")
        return FileAccessError(f"{path}: {err.strerror}")

    def read(self, path: str, line: int | None = None, limit: int | None = None) -> str:
        parts = self._parts(path)
        fd = self._walk(path, parts, create_dirs=False)
        try:
            try:
                file_fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                raise FileAccessError(f"{path}: no such file", not_found=True) from None
            except OSError as err:
                raise self._link_error(path, parts[-1], err, fd) from None
        finally:
            os.close(fd)
        with os.fdopen(file_fd, "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        if len(data) > MAX_READ_BYTES:
            raise FileAccessError(f"{path}: larger than {MAX_READ_BYTES} bytes; read it with line/limit from a "
                                  f"smaller file")
        text = data.decode("utf-8", errors="replace")
        if line is None and limit is None:
            return text
        if line is not None and line < 1:
            raise FileAccessError(f"line must be 1 or more (lines are numbered from 1), got {line}")
        if limit is not None and limit < 0:
            raise FileAccessError(f"limit must not be negative, got {limit}")
        lines = text.splitlines(keepends=True)
        start = (line or 1) - 1
        end = None if limit is None else start + limit
        return "".join(lines[start:end])

    def write(self, path: str, content: str) -> None:
        parts = self._parts(path)
        fd = self._walk(path, parts, create_dirs=True)
        try:
            try:
                file_fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666, dir_fd=fd)
            except OSError as err:
                raise self._link_error(path, parts[-1], err, fd) from None
        finally:
            os.close(fd)
        with os.fdopen(file_fd, "wb") as handle:
            handle.write(content.encode("utf-8"))


def _is_link(name: str, dir_fd: int) -> bool:
    import stat

    return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
