"""nbval, comparing a display updated in place at its final state (a pytest plugin).

A codex_nb widget is displayed before its turn runs and updates its stored ``text/plain`` and
``text/html`` in place (``update_display_data``) when a later cell ends, so a saved notebook shows
how the turn ended. nbclient and ``jupyter nbconvert --execute`` store that final bundle; nbval
compares each cell with the messages of that cell alone, so it would compare the first render
("Turn: running", "no plan yet") with the stored final state and fail, or, with the first render
stored, pass a notebook that contradicts itself.

With this plugin (``pytest -p codex_nb.testing.nbval_displays --nbval ...``; codex_nb's own
``pyproject.toml`` adds it) a display that has a display id is compared when the notebook's last
cell has run: its newest bundle (the first render, or the last update any later cell published)
against the stored one, through the same sanitizer. The cell that showed it is still compared on
everything else (its other outputs, the display's other MIME types). Without ``--nbval`` the
plugin does nothing.
"""

from __future__ import annotations

import copy
from typing import Any

DISPLAY_KEY = "codex_nb.display_id"
"""Where a display's id is kept on nbval's copy of the output (nbval does not compare metadata)."""
COMPARED_LATE = ("text/plain", "text/html")
"""The MIME types an in-place update changes (the widget view's model id is not compared)."""

_INSTALLED = "_codex_nb_displays"


def pytest_configure(config: Any) -> None:
    option = config.option
    if getattr(option, "nbval", False) or getattr(option, "nbval_lax", False):
        from nbval import plugin  # type: ignore[import-untyped]  # nbval ships no types

        install(plugin)


def install(nbval_plugin: Any) -> None:
    """Wrap nbval's message reading, comparison and cell run (idempotent)."""
    file_class, cell_class = nbval_plugin.IPyNbFile, nbval_plugin.IPyNbCell
    if getattr(cell_class, _INSTALLED, False):
        return
    read, compare, run = file_class.get_kernel_message, cell_class.compare_outputs, cell_class.runtest

    def get_kernel_message(self: Any, timeout: float | None = None, stream: str = "iopub") -> Any:
        msg = read(self, timeout=timeout, stream=stream)
        if stream == "iopub":
            _note(_state(self), msg)
        return msg

    def compare_outputs(self: Any, test: list[Any], ref: list[Any], skip_compare: Any = None) -> Any:
        return compare(self, _defer(_state(self.parent), self.cell_num, test, ref), ref, skip_compare)

    def runtest(self: Any) -> None:
        run(self)
        if self.cell_num == _last_code_cell(self.parent):
            unmet = _final_mismatches(self, _state(self.parent))
            if unmet:
                self.raise_cell_error("A display updated in place does not end as stored", "\n\n".join(unmet))

    file_class.get_kernel_message = get_kernel_message
    cell_class.compare_outputs = compare_outputs
    cell_class.runtest = runtest
    setattr(cell_class, _INSTALLED, True)


def _state(nb_file: Any) -> dict[str, Any]:
    state = nb_file.__dict__.get(_INSTALLED)
    if state is None:
        state = nb_file.__dict__[_INSTALLED] = {"latest": {}, "stored": {}}
    return state


def _note(state: dict[str, Any], msg: dict[str, Any]) -> None:
    kind, content = msg.get("msg_type"), msg.get("content") or {}
    display_id = (content.get("transient") or {}).get("display_id")
    if not display_id or kind not in ("display_data", "execute_result", "update_display_data"):
        return
    state["latest"][display_id] = content.get("data") or {}
    if kind == "update_display_data":
        # nbval reads it as an unknown message of the running cell; it belongs to an earlier one
        msg["msg_type"] = "execute_input"
    else:
        content["metadata"] = {**(content.get("metadata") or {}), DISPLAY_KEY: display_id}


def _defer(state: dict[str, Any], cell_num: int, test: list[Any], ref: list[Any]) -> list[Any]:
    """``test`` with each display's late-compared types taken from the stored output (compared at
    the end instead); displays are matched in order, and a different count is left to nbval."""
    kinds = ("display_data", "execute_result")
    displays = [index for index, o in enumerate(test) if o.get("output_type") in kinds]
    stored = [o for o in ref if o.get("output_type") in kinds]
    if len(displays) != len(stored):
        return test
    out = list(test)
    for position, index in enumerate(displays):
        output = test[index]
        display_id = (output.get("metadata") or {}).get(DISPLAY_KEY)
        if display_id is None:
            continue
        reference = stored[position].get("data", {})
        state["stored"][display_id] = (cell_num, reference)
        data = dict(output.get("data", {}))
        for mime in COMPARED_LATE:
            if mime in reference and mime in data:
                data[mime] = reference[mime]
        copied = copy.copy(output)  # nbval's NotebookNode (attribute access), with its own data
        copied["data"] = data
        out[index] = copied
    return out


def _last_code_cell(nb_file: Any) -> int:
    return sum(1 for cell in nb_file.nb.cells if cell.cell_type == "code") - 1


def _final_mismatches(cell: Any, state: dict[str, Any]) -> list[str]:
    unmet = []
    for display_id, (cell_num, reference) in sorted(state["stored"].items(), key=lambda item: item[1][0]):
        final = state["latest"].get(display_id, {})
        for mime in COMPARED_LATE:
            if mime not in reference or mime not in final:
                continue
            want, got = cell.sanitize(_text(reference[mime])), cell.sanitize(_text(final[mime]))
            if want != got:
                unmet.append(f"Cell {cell_num}, {mime}: stored\n{want}\nbut its final state is\n{got}")
    return unmet


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)
