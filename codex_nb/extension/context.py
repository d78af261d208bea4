"""Context from the notebook: cells, their outputs and variables attached to a prompt.

``%%codex --cells 3,5-7 --outputs --vars df,fig`` reads what the kernel already holds: the
sources IPython keeps by execution count (``In``), the results it keeps (``Out``) and the
notebook's variables. Everything is bounded before it is sent, since a cell may hold anything:
a text at most ``MAX_TEXT`` characters (the cut is said), a value by its bounded summary
(``value_summary``: a DataFrame by its first rows, a Series, an array, a polars frame), at most
``MAX_IMAGES`` images, each checked by its bytes (``image_bytes``: decodable, of the type it is
sent as, at most ``MAX_IMAGE_BYTES``; one that is not is left out, and the note says why), at
most ``MAX_CELLS`` cells and ``MAX_TOTAL`` characters in all. ``bounded`` enforces the caps,
and runs again where the prompt is built (``turn_input``), whatever the attachments came from.

How it reaches the agent depends on what the agent takes: the real Codex gets images as input
images (``{"type": "image", "url": "data:..."}``), an ACP agent whose ``promptCapabilities.image``
is on gets image blocks; codex_nb's runtime and every other agent get each image's text
description, and ``Attachments.notes`` says so.
"""

from __future__ import annotations

import base64
import io
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..protocol.capabilities import Capabilities
from .image_bytes import MAX_IMAGE_BYTES, ImageRefused, check, data_url, from_base64, too_large
from .value_summary import safe_str, summarize

MAX_TEXT = 4_000
MAX_TOTAL = 40_000
MAX_IMAGES = 4
MAX_CELLS = 50


class ContextError(ValueError):
    """A ``--cells`` / ``--vars`` request names something the kernel does not have; says what does."""


@dataclass(frozen=True, kw_only=True)
class Attachment:
    """One attached thing: a cell's source, a cell's output, a variable, or an image."""

    kind: str
    """``cell``, ``output``, ``variable`` or ``image``."""
    label: str
    """What the transcript shows: ``cell 3``, ``output of cell 3``, ``df: DataFrame (1000000, 3)``."""
    text: str
    """The text sent (for an image: its description, sent when the agent takes no images)."""
    image: str | None = None
    """A ``data:image/png;base64,...`` URL for an image."""
    truncated: bool = False


@dataclass(kw_only=True)
class Attachments:
    """What ``collect`` found, in order, and how each will reach the agent."""

    items: list[Attachment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the person should know (an image sent as text, a value cut short)."""

    @property
    def images(self) -> list[Attachment]:
        """The attached images."""
        return [a for a in self.items if a.image is not None]

    def prompt(self, message: str, *, images: bool) -> str:
        """The text the agent reads: the attachments, then the person's message. ``images=False``:
        each image is described in text instead (the agent takes none)."""
        if not self.items:
            return message
        parts = ["Context from the notebook:"]
        for a in self.items:
            if a.image is not None and images:
                parts.append(f"[{a.label}] (attached as an image)")
            else:
                parts.append(f"[{a.label}]\n{a.text}")
        parts.append(f"Message:\n{message}")
        return "\n\n".join(parts)

    def summary(self) -> str:
        """One line per attachment (the transcript's Attachments block), in plain text: an emoji
        (a paperclip) is an empty box where no emoji font is installed."""
        return "\n".join(f"- {a.label}" + (" (cut)" if a.truncated else "") for a in self.items)


def parse_cells(spec: str) -> list[int]:
    """``"3,5-7"`` -> ``[3, 5, 6, 7]`` (execution counts, as IPython numbers them; each once, in the
    order named). More than ``MAX_CELLS`` is refused from the bounds, before any range is expanded."""
    out: dict[int, None] = {}
    parts = [part.strip() for part in spec.split(",") if part.strip()]
    if len(parts) > MAX_CELLS:
        raise ContextError(f"--cells {_shown(spec)}: at most {MAX_CELLS} cells at once ({len(parts):,} are named)")
    for part in parts:
        first, sep, last = part.partition("-")
        try:
            lo, hi = int(first), int(last) if sep else int(first)
        except ValueError:
            raise ContextError(
                f"--cells {_shown(spec)}: give execution counts like 3,5-7 (the numbers in In [n]), not {_shown(part)}"
            ) from None
        if lo < 1 or hi < lo:
            raise ContextError(
                f"--cells {_shown(spec)}: {_shown(part)} is not a range of execution counts (n >= 1, low-high)"
            )
        if hi - lo + 1 > MAX_CELLS:
            raise ContextError(
                f"--cells {_shown(spec)}: {_shown(part)} is {hi - lo + 1:,} cells; at most {MAX_CELLS} at once"
            )
        out.update(dict.fromkeys(range(lo, hi + 1)))
        if len(out) > MAX_CELLS:
            raise ContextError(f"--cells {_shown(spec)}: at most {MAX_CELLS} cells at once")
    return list(out)


def _shown(text: str) -> str:
    """A spec in an error message, quoted and cut (a typo may be a megabyte long)."""
    return repr(text) if len(text) <= 80 else repr(text[:80]) + f"… ({len(text):,} characters)"


def _cut(text: str, notes: list[str], label: str) -> tuple[str, bool]:
    if len(text) <= MAX_TEXT:
        return text, False
    notes.append(f"{label} was cut to {MAX_TEXT:,} of its {len(text):,} characters")
    return text[:MAX_TEXT] + f"\n… [{len(text) - MAX_TEXT:,} more characters]", True


def _png(value: Any) -> bytes | None:
    """PNG bytes of a figure or of anything with ``_repr_png_`` (None if it is neither, or if its
    ``_repr_png_`` returns None, as IPython allows); raises whatever they raise."""
    if callable(getattr(value, "savefig", None)):
        buf = io.BytesIO()
        value.savefig(buf, format="png", dpi=72)
        return buf.getvalue()
    repr_png = getattr(value, "_repr_png_", None)
    if callable(repr_png) and not isinstance(value, type):
        data = repr_png()
        if data is None:
            return None
        if isinstance(data, str):  # IPython also takes base64 text
            return from_base64(data, "image/png")
        if not isinstance(data, (bytes, bytearray)):
            raise ImageRefused(f"its _repr_png_ returned {type(data).__name__}, not bytes")
        return bytes(data)
    return None


def describe(name: str, value: Any, notes: list[str]) -> Attachment:
    """One value as an attachment: a figure or anything with ``_repr_png_`` as a checked PNG image,
    else its bounded summary (``value_summary``). Never raises: an image that fails its check, or a
    summary that fails, is said in ``notes`` and the value goes as what could be read of it."""
    kind = type(value).__name__
    left_out = ""
    try:
        png = _png(value)
        if png is not None:
            check(png, "image/png")
    except ImageRefused as refused:
        left_out, png = str(refused), None
    except Exception as err:  # noqa: BLE001  (a library's savefig or _repr_png_ may raise anything)
        left_out, png = f"making it raised {type(err).__name__}: {safe_str(err)}", None
    if png is not None:
        label = f"{name}: {kind} (image)"
        url = "data:image/png;base64," + base64.b64encode(png).decode()
        return _image(label, f"an image ({kind}, {len(png):,} bytes of PNG)", url)
    summary = summarize(value)
    said = summary.text
    if left_out:
        notes.append(f"{name}: its image was left out: {left_out}")
        said = f"(its image was left out: {left_out})\n{said}"
    if summary.note is not None:
        notes.append(f"{name}: {summary.note}")
    text, cut = _cut(said, notes, name)
    return Attachment(kind="variable", label=f"{name}: {summary.kind}", text=text, truncated=cut)


_CHECKED: weakref.WeakSet[Attachment] = weakref.WeakSet()
"""Image attachments whose bytes were checked, so ``bounded`` (run again at the prompt) does not
inflate the same pixels twice."""


def _image(label: str, text: str, url: str) -> Attachment:
    attachment = Attachment(kind="image", label=label, text=text, image=url)
    _CHECKED.add(attachment)
    return attachment


def collect(
    namespace: Mapping[str, Any],
    *,
    cells: str | None = None,
    outputs: bool = False,
    variables: str | None = None,
) -> Attachments:
    """The attachments a ``%%codex`` cell asked for, read from the kernel's ``namespace``.

    Raises ``ContextError`` for a cell that was never run (or whose history is gone) or a
    variable that does not exist, naming what does, before anything is sent."""
    found = Attachments()
    numbers = parse_cells(cells) if cells else []
    history = namespace.get("In") or []
    results = namespace.get("Out") or {}
    if outputs and not numbers:
        raise ContextError("--outputs attaches the outputs of the cells named by --cells: add --cells 3,5-7")
    if numbers and len(history) <= 1:
        raise ContextError(
            "--cells: this kernel keeps no input history (its cells ran without storing it, as notebook "
            "runners such as nbval run them); attach values with --vars instead"
        )
    for n in numbers:
        if not (0 < n < len(history)):
            raise ContextError(
                f"--cells: there is no cell {n} in this kernel's history (cells 1-{len(history) - 1} have run); "
                "use the number in In [n] of a cell run since the kernel started"
            )
        source, cut = _cut(str(history[n]), found.notes, f"cell {n}")
        found.items.append(Attachment(kind="cell", label=f"cell {n}", text=source, truncated=cut))
        if outputs and n in results:
            value = describe(f"output of cell {n}", results[n], found.notes)
            found.items.append(value)
    for name in [v.strip() for v in (variables or "").split(",") if v.strip()]:
        if name not in namespace:
            raise ContextError(
                f"--vars: no variable named {name!r} in the notebook; define it first (or check the spelling)"
            )
        found.items.append(describe(name, namespace[name], found.notes))
    return bounded(found)


def joined(sent: Attachments, found: Attachments | None) -> Attachments:
    """Send to agent's cells, then the ``--cells/--outputs/--vars`` ones, within one prompt's bounds."""
    if found is None:
        return sent
    return bounded(Attachments(items=[*sent.items, *found.items], notes=[*sent.notes, *found.notes]))


def bounded(found: Attachments) -> Attachments:
    """``found`` within the bounds one prompt may carry, whatever made it: an image whose bytes fail
    their check goes as text, images past ``MAX_IMAGES`` go as text (both said in ``notes``); more
    than ``MAX_CELLS`` cells or ``MAX_TOTAL`` characters raises ``ContextError``."""
    items: list[Attachment] = []
    kept = extra = 0
    for a in found.items:
        if a.image is not None and kept >= MAX_IMAGES:  # not even checked: it goes as text anyway
            extra += 1
            a = _as_text(a)
        elif a.image is not None and a not in _CHECKED:
            try:
                data_url(a.image)
            except ImageRefused as refused:
                found.notes.append(f"{a.label} was left out: {refused}")
                a = Attachment(kind="variable", label=a.label, text=f"(image left out: {refused})")
            else:
                _CHECKED.add(a)
        kept += a.image is not None
        items.append(a)
    found.items = items
    if extra:
        found.notes.append(f"{kept + extra} images: only the first {MAX_IMAGES} are attached as images")
    cells = sum(1 for a in found.items if a.kind == "cell")
    if cells > MAX_CELLS:
        raise ContextError(
            f"the attachments hold {cells} cells, more than the {MAX_CELLS} one prompt may carry; attach fewer "
            "cells (%codex_attachments lists those Send to agent attached, --clear drops them)"
        )
    total = sum(len(a.text) for a in found.items)
    if total > MAX_TOTAL:
        raise ContextError(
            f"the attachments hold {total:,} characters, more than the {MAX_TOTAL:,} one prompt may carry; "
            "attach fewer cells or variables"
        )
    return found


IMAGE_TYPES = ("image/png", "image/jpeg")


def notebook_cells(cells: list[dict[str, Any]], *, outputs: bool = True) -> Attachments:
    """The cells the page sent (``Send to agent``: nbformat cells with their ``index``), as they are
    now: each source, then its outputs (text, PNG/JPEG images), each bounded; ``bounded`` applies."""
    found = Attachments()
    for cell in cells:
        label = cell_label(cell)
        source, cut = _cut(str(cell.get("source", "")), found.notes, label)
        found.items.append(Attachment(kind="cell", label=label, text=source, truncated=cut))
        if outputs:
            found.items.extend(_outputs(cell, label, found.notes))
    return bounded(found)


def cell_label(cell: dict[str, Any]) -> str:
    """``notebook cell 4 (In [3])``: its place in the notebook (1-based), and its run if it ran."""
    count = cell.get("execution_count")
    ran = f" (In [{count}])" if isinstance(count, int) else ""
    kind = "" if cell.get("cell_type", "code") == "code" else f" ({cell.get('cell_type')})"
    return f"notebook cell {int(cell.get('index', 0)) + 1}{ran}{kind}"


def _outputs(cell: dict[str, Any], label: str, notes: list[str]) -> list[Attachment]:
    texts: list[str] = []
    images: list[Attachment] = []
    for output in cell.get("outputs") or []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            texts.append(_joined(output.get("text")))
        elif kind == "error":
            texts.append(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
        elif kind in ("execute_result", "display_data"):
            data = output.get("data") or {}
            mime = next((m for m in IMAGE_TYPES if m in data), None)
            if mime is not None:  # its bytes are checked by bounded (not past MAX_IMAGES: those go as text)
                what = f"image of the output of {label}"
                raw = "".join(data[mime].split()) if isinstance(data[mime], str) else None
                size = len(raw) * 3 // 4 - (len(raw) - len(raw.rstrip("="))) if raw is not None else 0
                if raw is None or size > MAX_IMAGE_BYTES:
                    why = "its data is not base64 text" if raw is None else too_large(size)
                    notes.append(f"the {mime} {what} was left out: {why}")
                    texts.append(f"({mime} image left out: {why})")
                else:
                    text = f"an image ({mime}, {size:,} bytes) shown as the output of {label}"
                    images.append(Attachment(kind="image", label=what, text=text, image=f"data:{mime};base64,{raw}"))
            if "text/plain" in data:
                texts.append(_joined(data["text/plain"]))
    out: list[Attachment] = []
    if texts:
        text, cut = _cut("\n".join(t.rstrip("\n") for t in texts), notes, f"output of {label}")
        out.append(Attachment(kind="output", label=f"output of {label}", text=text, truncated=cut))
    return out + images


def _joined(text: Any) -> str:
    return "".join(text) if isinstance(text, list) else str(text or "")


def _as_text(a: Attachment) -> Attachment:
    return Attachment(kind="variable", label=a.label, text=a.text, truncated=a.truncated)


def turn_input(capabilities: Capabilities, message: str, found: Attachments) -> tuple[Any, dict[str, Any]]:
    """``(text_or_blocks, start_turn options)`` for a source offering ``capabilities``: images as it
    takes them (``capabilities.images``), else described in text (and said in ``notes``).
    Every cap of ``bounded`` is enforced here again, where the prompt is built, whatever assembled
    ``found`` (``ContextError`` past ``MAX_CELLS`` cells or ``MAX_TOTAL`` characters)."""
    images = bounded(found).images
    if capabilities.images == "input_items" and images:
        text = found.prompt(message, images=True)
        items = [{"type": "text", "text": text}] + [{"type": "image", "url": a.image} for a in images]
        return text, {"input": items}
    if capabilities.images == "content_blocks" and images:
        text = found.prompt(message, images=True)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for a in images:  # ACP wants the image's own type: a cell's output may be a JPEG
            head, _, data = (a.image or "").partition(",")
            mime = head.removeprefix("data:").partition(";")[0] or "image/png"
            blocks.append({"type": "image", "mimeType": mime, "data": data})
        return blocks, {}
    if images:
        found.notes.append(f"{capabilities.agent} takes no images here: each image was sent as its text description")
    return found.prompt(message, images=False), {}
