"""``Session.load_hooks`` reads a hooks file through the bounded reader.

The path is typed by a person and may name a FIFO (a plain read waits for a writer for ever),
a device (``/dev/zero`` never ends), a huge or a binary file. Each is refused unread, with an
error that names the path, what it is and what to give instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.config.files import MAX_FILE_BYTES

GIVE = "give the path of a Codex hooks.json or config.toml"


def _hostile(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "nul.json").write_bytes(b'{"hooks": {}}\0')
    with open(tmp_path / "huge.json", "wb") as f:  # sparse: refused by its size, never read
        f.truncate(MAX_FILE_BYTES + 1)
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    return {
        "fifo": (tmp_path / "fifo.json", f"is a FIFO (named pipe), not a regular file; {GIVE}"),
        "zero": (Path("/dev/zero"), f"is a character device, not a regular file; {GIVE}"),
        "zero-link": (tmp_path / "zero.json", f"is a character device, not a regular file; {GIVE}"),
        "nul": (tmp_path / "nul.json", f"is a binary file (it holds NUL bytes at offset 13); {GIVE} (UTF-8 text)"),
        "huge": (
            tmp_path / "huge.json",
            "is larger than 4 MiB; a Codex hooks.json or config.toml is a few KiB: check the path",
        ),
    }


@pytest.mark.timeout(60)  # a plain read of the FIFO or of /dev/zero never returns
@pytest.mark.parametrize("kind", ["fifo", "zero", "zero-link", "nul", "huge"])
def test_a_hooks_file_that_is_not_a_small_text_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    path, reason = _hostile(tmp_path)[kind]
    shown = Path(path).resolve()
    session = cx.Session(cwd=str(tmp_path))
    with pytest.raises(cx.errors.HookError) as caught:
        session.load_hooks(path)
    assert str(caught.value) == f"the hooks file {shown} {reason}"
    assert session.hook_engine.hooks() == []


@pytest.mark.timeout(60)
def test_a_fifo_named_hooks_json_in_a_layer_directory_is_refused_not_skipped(tmp_path: Path) -> None:
    """Skipping it would load the layer's other file and hide that its hooks.json was not read."""
    layer = tmp_path / "layer"
    layer.mkdir()
    os.mkfifo(layer / "hooks.json")
    (layer / "config.toml").write_text('[[hooks.PreToolUse]]\nhooks = [{ type = "command", command = "true" }]\n')
    with pytest.raises(cx.errors.HookError) as caught:
        cx.Session(cwd=str(tmp_path)).load_hooks(layer)
    assert (
        str(caught.value)
        == f"the hooks file {layer.resolve() / 'hooks.json'} is a FIFO (named pipe), not a regular file; {GIVE}"
    )


def test_a_missing_hooks_file_still_says_it_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(cx.errors.HookError) as caught:
        cx.Session(cwd=str(tmp_path)).load_hooks(tmp_path / "nope.json")
    assert str(caught.value) == (
        f"hooks file {(tmp_path / 'nope.json').resolve()} does not exist; pass a hooks.json, a config.toml or a "
        "layer directory"
    )
