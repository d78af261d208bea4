"""``run_code``: run Python in the user's namespace, on a thread of its own, bounded in time and
output, stoppable, and answered in Codex's exec output shape.

The code runs on a daemon thread so that the kernel's event loop (and with it the Stop button,
the widgets and the person's own cells) keeps running however long it takes. Its prints and
displays are captured for this call only (``capture``); its last expression's value is the
result, as in a cell. A timeout or a Stop raises ``CodeStopped`` in the thread (and in threads
it started); code blocked in C that cannot be stopped is reported as still running.

The answer follows Codex's unified exec output (``Wall time: … seconds``, ``Process exited with
code N``, ``Output:``): exit code 0 when the code ran to its end, 1 when it raised, 124 when the
timeout stopped it (``timeout(1)``'s code).
"""

from __future__ import annotations

import ast
import asyncio
import time
import traceback
from dataclasses import field
from typing import Any

from ..._records import record
from ...protocol.items import ContentItem
from . import code_threads
from .capture import Capture, routed
from .cells import IMAGE_MIMES, TEXT_MIMES
from .visible_text import clean, image_item

EXIT_OK, EXIT_RAISED, EXIT_TIMEOUT = 0, 1, 124
FILENAME = "<run_code>"


@record(kw_only=True)
class RunOutcome:
    exit_code: int
    seconds: float
    output: str
    images: list[ContentItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def body(self) -> list[ContentItem]:
        lines = [f"Wall time: {self.seconds:.4f} seconds", f"Process exited with code {self.exit_code}"]
        lines.extend(self.notes)
        text = "\n".join(lines) + "\nOutput:\n" + self.output
        return [{"type": "input_text", "text": text}, *self.images]


def compile_cell(code: str) -> tuple[Any, Any]:
    """(statements, last expression or None), compiled as a cell is: the last expression is the result."""
    tree = ast.parse(code, FILENAME, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        final = tree.body.pop()
        assert isinstance(final, ast.Expr)
        last = ast.Expression(final.value)
    body = compile(tree, FILENAME, "exec")
    return body, (compile(last, FILENAME, "eval") if last is not None else None)


def _execute(code: str, namespace: dict[str, Any], capture: Capture, limit: int) -> str | None:
    """Runs on the code's thread, the result's ``repr`` too (it is the user's code as well)."""
    with routed(capture):
        body, last = compile_cell(code)
        exec(body, namespace)  # noqa: S102  running the model's code is this tool's purpose (approved)
        value = eval(last, namespace) if last is not None else None  # noqa: S307
        if value is None:
            return None
        namespace["_"] = value
        try:
            return clean(repr(value), limit)
        except Exception as err:  # noqa: BLE001  the result's own __repr__ may raise
            return f"<__repr__ raised {type(err).__name__}: {clean(err, 200)}>"


def _traceback(err: BaseException, limit: int) -> str:
    frames = traceback.extract_tb(err.__traceback__)
    own = [f for f in frames if f.filename == FILENAME]  # the user's frames, not this module's
    lines = traceback.format_list(own[-20:]) if own else []
    head = "Traceback (most recent call last):\n" if lines else ""
    return clean(head + "".join(lines) + "".join(traceback.format_exception_only(type(err), err)), limit)


async def run_code(
    code: str, namespace: dict[str, Any], *, timeout: float, max_chars: int, max_image_bytes: int, max_images: int
) -> RunOutcome:
    """Run ``code``; a cancellation (Stop) stops the thread and propagates."""
    capture = Capture(limit=max_chars)
    started = time.monotonic()
    run = code_threads.start(lambda: _execute(code, namespace, capture, max_chars // 4), name="codex-nb-run-code")
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(run.finished.wait()), timeout)
    except TimeoutError:
        timed_out = True
    except asyncio.CancelledError:
        await code_threads.stop(run)
        raise
    notes: list[str] = []
    if timed_out:
        stopped = await code_threads.stop(run)
        notes.append(
            f"run_code timed out after {timeout:g} s and was interrupted"
            + ("" if stopped else "; it is still running in the background (blocked in C code)")
        )
    leftover = [t.name for t in run.started_threads()]
    if leftover:
        for thread in run.started_threads():
            code_threads.ask_to_stop(thread)
        notes.append(f"threads the code started were still running and were asked to stop: {', '.join(leftover[:10])}")
    seconds = time.monotonic() - started
    output, images = _outputs(run, capture, max_chars=max_chars, max_image_bytes=max_image_bytes, max_images=max_images)
    if timed_out:
        code_ = EXIT_TIMEOUT
    elif run.error:
        code_ = EXIT_RAISED
    else:
        code_ = EXIT_OK
    return RunOutcome(exit_code=code_, seconds=seconds, output=output, images=images, notes=notes)


def _outputs(
    run: code_threads.Run, capture: Capture, *, max_chars: int, max_image_bytes: int, max_images: int
) -> tuple[str, list[ContentItem]]:
    parts = [capture.text()] if capture.total else []
    images: list[ContentItem] = []
    for data in capture.displays:
        mime = next((m for m in TEXT_MIMES if m in data), None)
        if mime is not None:
            parts.append(f"[display {mime}]\n{clean(data[mime], max_chars // 4)}")
        for image in (m for m in IMAGE_MIMES if m in data):
            item = image_item(image, data[image], max_bytes=max_image_bytes)
            if isinstance(item, str):
                parts.append(item)
            elif len(images) < max_images:
                images.append(item)
    if capture.dropped_displays:
        parts.append(f"[{capture.dropped_displays} more display outputs left out]")
    if run.error and not isinstance(run.error[0], code_threads.CodeStopped):
        parts.append(_traceback(run.error[0], max_chars // 2))
    elif run.result and run.result[0] is not None:
        parts.append(f"Out: {run.result[0]}")
    return clean("\n".join(p.rstrip("\n") for p in parts), max_chars), images
