"""Context from the notebook: cells, their outputs and variables attached to a prompt.

``%%codex --cells 3,5-7 --outputs --vars df,fig`` reads what the kernel already holds: the
sources IPython keeps by execution count (``In``), the results it keeps (``Out``) and the
notebook's variables. Everything is bounded before it is sent, since a cell may hold anything:
a text at most ``MAX_TEXT`` characters (the cut is said), a DataFrame as its first ``TABLE_ROWS``
rows (``head`` reads no more of a 500 MB frame than that), a value by ``reprlib`` (which never
walks a whole container), at most ``MAX_IMAGES`` images of at most ``MAX_IMAGE_BYTES`` each.

How it reaches the agent depends on what the agent takes: the real Codex gets images as input
images (``{"type": "image", "url": "data:..."}``), an ACP agent whose ``promptCapabilities.image``
is on gets image blocks; codex_nb's runtime and every other agent get each image's text
description, and ``Attachments.notes`` says so.
"""

from __future__ import annotations

import base64
import io
import reprlib
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from dataclasses import dataclass

MAX_TEXT = 4_000
MAX_TOTAL = 40_000
TABLE_ROWS = 20
MAX_IMAGES = 4
MAX_IMAGE_BYTES = 2_000_000
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
    """``"3,5-7"`` -> ``[3, 5, 6, 7]`` (execution counts, as IPython numbers them)."""
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        first, sep, last = part.partition("-")
        try:
            lo, hi = int(first), int(last) if sep else int(first)
        except ValueError:
            raise ContextError(
                f"--cells {spec!r}: give execution counts like 3,5-7 (the numbers in In [n]), not {part!r}"
            ) from None
        if lo < 1 or hi < lo:
            raise ContextError(f"--cells {spec!r}: {part!r} is not a range of execution counts (n >= 1, low-high)")
        out.extend(range(lo, hi + 1))
        if len(out) > MAX_CELLS:
            raise ContextError(f"--cells {spec!r}: at most {MAX_CELLS} cells at once")
    return out


def _cut(text: str, notes: list[str], label: str) -> tuple[str, bool]:
    if len(text) <= MAX_TEXT:
        return text, False
    notes.append(f"{label} was cut to {MAX_TEXT:,} of its {len(text):,} characters")
    return text[:MAX_TEXT] + f"\n… [{len(text) - MAX_TEXT:,} more characters]", True


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 2 * MAX_TEXT  # reprlib bounds the work, _cut the text (saying so)
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 50


def _png(value: Any) -> bytes | None:
    """PNG bytes of a figure or of anything with ``_repr_png_`` (None if it is neither)."""
    if callable(getattr(value, "savefig", None)):
        buf = io.BytesIO()
        value.savefig(buf, format="png", dpi=72)
        return buf.getvalue()
    repr_png = getattr(value, "_repr_png_", None)
    if callable(repr_png) and not isinstance(value, type):
        data = repr_png()
        return data if isinstance(data, bytes) else None
    return None


def describe(name: str, value: Any, notes: list[str]) -> Attachment:
    """One value as an attachment: a DataFrame as a bounded table, a figure as an image, else its
    type and bounded repr."""
    kind = type(value).__name__
    png = _png(value)
    if png is not None:
        label = f"{name}: {kind} (image)"
        if len(png) > MAX_IMAGE_BYTES:
            notes.append(f"{label} is {len(png):,} bytes, more than {MAX_IMAGE_BYTES:,}: sent as text only")
            return Attachment(kind="variable", label=label, text=f"{kind} (image too large to attach)")
        url = "data:image/png;base64," + base64.b64encode(png).decode()
        return Attachment(kind="image", label=label, text=f"an image ({kind}, {len(png):,} bytes of PNG)", image=url)
    shape = getattr(value, "shape", None)
    if callable(getattr(value, "head", None)) and callable(getattr(value, "to_string", None)) and shape is not None:
        table = value.head(TABLE_ROWS).to_string(max_cols=20, max_colwidth=60)
        text, cut = _cut(f"{kind} of shape {tuple(shape)}; first {TABLE_ROWS} rows:\n{table}", notes, name)
        return Attachment(kind="variable", label=f"{name}: {kind} {tuple(shape)}", text=text, truncated=cut)
    text, cut = _cut(_REPR.repr(value), notes, name)
    return Attachment(kind="variable", label=f"{name}: {kind}", text=text, truncated=cut)


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


def bounded(found: Attachments) -> Attachments:
    """``found`` within the bounds one prompt may carry: images past ``MAX_IMAGES`` go as text (said
    in ``notes``); more than ``MAX_TOTAL`` characters raises ``ContextError``."""
    images = found.images
    if len(images) > MAX_IMAGES:
        found.notes.append(f"{len(images)} images: only the first {MAX_IMAGES} are attached as images")
        keep = {id(a) for a in images[:MAX_IMAGES]}
        found.items = [a if a.image is None or id(a) in keep else _as_text(a) for a in found.items]
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
            mime = next((m for m in IMAGE_TYPES if isinstance(data.get(m), str)), None)
            if mime is not None:
                raw = str(data[mime]).replace("\n", "")
                size = len(raw) * 3 // 4 - (len(raw) - len(raw.rstrip("=")))
                what = f"image of the output of {label}"
                if size > MAX_IMAGE_BYTES:
                    notes.append(f"{what} is {size:,} bytes, more than {MAX_IMAGE_BYTES:,}: sent as text only")
                    texts.append(f"({mime} image too large to attach)")
                else:
                    images.append(
                        Attachment(
                            kind="image",
                            label=what,
                            text=f"an image ({mime}, {size:,} bytes) shown as the output of {label}",
                            image=f"data:{mime};base64,{raw}",
                        )
                    )
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


def turn_input(source: Any, kind: str, message: str, found: Attachments) -> tuple[Any, dict[str, Any]]:
    """``(text_or_blocks, start_turn options)`` for ``source`` of ``kind`` (``app_server``, ``acp``,
    ``session``): images as the agent takes them, else described in text (and said in ``notes``)."""
    images = found.images
    if kind == "app_server" and images:
        text = found.prompt(message, images=True)
        items = [{"type": "text", "text": text}] + [{"type": "image", "url": a.image} for a in images]
        return text, {"input": items}
    if kind == "acp" and images and _acp_takes_images(source):
        text = found.prompt(message, images=True)
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for a in images:  # ACP wants the image's own type: a cell's output may be a JPEG
            head, _, data = (a.image or "").partition(",")
            mime = head.removeprefix("data:").partition(";")[0] or "image/png"
            blocks.append({"type": "image", "mimeType": mime, "data": data})
        return blocks, {}
    if images:
        who = "codex_nb's runtime" if kind == "session" else "this agent"
        found.notes.append(f"{who} takes no images here: each image was sent as its text description")
    return found.prompt(message, images=False), {}


def _acp_takes_images(source: Any) -> bool:
    info = getattr(getattr(source, "agent", None), "info", None)
    caps = getattr(getattr(info, "agent_capabilities", None), "prompt_capabilities", None)
    return bool(getattr(caps, "image", False))
