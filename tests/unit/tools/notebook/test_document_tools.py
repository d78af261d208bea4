"""The document tools on an in-memory notebook: listing and reading (bounded, images as images),
inserting and running, and an edit of a cell the person changed meanwhile failing as a conflict."""

from __future__ import annotations

import base64

from codex_nb.tools.notebook.cells import Cell
from codex_nb.tools.notebook.document import NO_FRONT_END
from codex_nb.testing import MemoryNotebook
from helpers.notebook_workspace import ON, session_with, trusting

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()


def chart_notebook() -> MemoryNotebook:
    outputs = (
        {"output_type": "stream", "name": "stdout", "text": ["rows: 3\n"]},
        {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}, "metadata": {}},
        {"output_type": "error", "ename": "KeyError", "evalue": "'x'", "traceback": ["\x1b[31mKeyError\x1b[0m: 'x'"]},
    )
    return MemoryNotebook(
        [
            Cell(id="md", cell_type="markdown", source="# Rain\n"),
            Cell(id="plot", cell_type="code", source="plot(df)\n", execution_count=4, outputs=outputs),
        ]
    )


async def test_list_cells() -> None:
    session, _ = session_with(document=chart_notebook())
    result = await session.call_tool("notebook.list_cells", {})
    assert result.output == "2 cells\n[0] md markdown: # Rain\n[1] plot code [4] (3 outputs): plot(df)"


async def test_read_cell_gives_text_and_images() -> None:
    session, _ = session_with(document=chart_notebook())
    result = await session.call_tool("notebook.read_cell", {"cell_id": "plot"})
    text, image = result.item["output"]
    assert text == {
        "type": "input_text",
        "text": "Cell 1 (id plot, code, execution count 4)\nSource:\nplot(df)\n\nOutputs:\n[stream stdout]\nrows: 3\n"
        "\n[display_data text/plain]\n<Figure>\n[error] KeyError: 'x'\nKeyError: 'x'",
    }
    assert image == {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "high"}
    by_index = await session.call_tool("notebook.read_cell", {"index": 0})
    assert by_index.output.startswith("Cell 0 (id md, markdown)")


async def test_huge_sources_and_images_are_bounded() -> None:
    big = "y = 1\n" * 50_000
    huge_png = base64.b64encode(b"\0" * 3_000_000).decode()
    outputs = ({"output_type": "display_data", "data": {"image/png": huge_png}, "metadata": {}},)
    doc = MemoryNotebook([Cell(id="big", cell_type="code", source=big, outputs=outputs)])
    session, _ = session_with(document=doc)
    result = await session.call_tool("notebook.read_cell", {"cell_id": "big"})
    (text,) = result.item["output"] if isinstance(result.item["output"], list) else [result.item["output"]]
    body = text if isinstance(text, str) else text["text"]
    assert len(body) <= 20_000
    assert "characters truncated]…" in body
    assert "[image/png output left out: about 3000000 bytes, more than the 2097152 bytes an answer carries]" in body


async def test_an_inserted_cell_runs_and_its_outputs_come_back() -> None:
    doc = MemoryNotebook(run_outputs=lambda cell: [{"output_type": "stream", "name": "stdout", "text": "6\n"}])
    session, _ = session_with(trusting(), document=doc)
    inserted = await session.call_tool("notebook.insert_cell", {"source": "print(sum([1, 2, 3]))"})
    assert inserted.output == "Inserted code cell new-1 at index 0"
    ran = await session.call_tool("notebook.run_cell", {"cell_id": "new-1"})
    assert (
        ran.output
        == "Cell 0 (id new-1, code, execution count 1)\nSource:\nprint(sum([1, 2, 3]))\nOutputs:\n[stream stdout]\n6\n"
    )
    assert doc.log == [("insert", "new-1"), ("run", "new-1")]


async def test_an_edit_of_a_cell_the_person_changed_is_a_conflict() -> None:
    doc = MemoryNotebook.of("total = 1\n")
    session, _ = session_with(trusting(), document=doc)
    await session.call_tool("notebook.read_cell", {"cell_id": "cell-0"})
    doc.person_edits("cell-0", "total = 100  # mine\n")
    result = await session.call_tool("notebook.edit_cell", {"cell_id": "cell-0", "source": "total = 2\n"})
    assert result.output == (
        "edit conflict: cell cell-0 changed since you last read it (the person edited it, or it was re-run); nothing "
        "was written. Call notebook.read_cell again and redo the edit on its current source"
    )
    assert doc.items[0].source == "total = 100  # mine\n" and doc.log == []
    await session.call_tool("notebook.read_cell", {"cell_id": "cell-0"})
    again = await session.call_tool("notebook.edit_cell", {"cell_id": "cell-0", "source": "total = 2\n"})
    assert again.output == "Edited cell cell-0 (index 0)" and doc.items[0].source == "total = 2\n"


async def test_edits_need_a_read_and_an_existing_cell() -> None:
    doc = MemoryNotebook.of("a = 1\n")
    session, _ = session_with(trusting(), document=doc)
    unread = await session.call_tool("notebook.edit_cell", {"cell_id": "cell-0", "source": ""})
    assert unread.output == "cell cell-0 has not been read in this session; call notebook.read_cell first, then edit it"
    missing = await session.call_tool("notebook.run_cell", {"cell_id": "gone"})
    assert missing.output == (
        "no cell with id gone in the open notebook (it may have been deleted); call notebook.list_cells"
    )
    markdown = MemoryNotebook([Cell(id="m", cell_type="markdown", source="# x")])
    session.workspace.set_document(markdown)
    assert (await session.call_tool("notebook.run_cell", {"cell_id": "m"})).output == (
        "cell m is a markdown cell; only code cells run"
    )


async def test_without_a_front_end_the_document_tools_say_so() -> None:
    session, _ = session_with(ON, document=None)
    for name, args in [("list_cells", {}), ("read_cell", {"index": 0}), ("insert_cell", {"source": "1"})]:
        result = await session.call_tool(f"notebook.{name}", args)
        assert result.output == NO_FRONT_END and result.success is False


async def test_a_turns_cell_edits_are_its_diff_growing_as_it_works() -> None:
    import codex_nb as cx
    from codex_nb.protocol.turn_diff import diff_files
    from codex_nb.testing import RecordingSubscriber
    from codex_nb.widgets.testing import recording_comms

    doc = MemoryNotebook.of("total = 1\nprint(total)\n")
    session, _ = session_with(trusting(), document=doc)
    log = RecordingSubscriber(session)
    with recording_comms():
        transcript = cx.Transcript(session, max_rate=None)
    timeline = cx.PlanTimeline(session)

    def call(name: str, args: dict, call_id: str) -> list:
        return [cx.function_call(name, args, call_id=call_id, namespace="notebook")]

    model = cx.ScriptedModel(
        [
            call("read_cell", {"cell_id": "cell-0"}, "r1"),
            call("edit_cell", {"cell_id": "cell-0", "source": "total = 2\nprint(total)\n"}, "e1"),
            call("read_cell", {"cell_id": "cell-0"}, "r2"),
            call("edit_cell", {"cell_id": "cell-0", "source": "total = 3\nprint(total)\n"}, "e2"),
            call("insert_cell", {"source": "assert total == 3"}, "i1"),
            [cx.assistant_message("done")],
        ]
    )
    result = await session.run_turn("bump the total", model=model)
    assert result.status == "completed" and doc.items[0].source == "total = 3\nprint(total)\n"
    diffs = [e.msg for e in log.of_type("turn_diff")]
    assert len(diffs) == 3 and all(d.turn_id == result.turn_id for d in diffs)
    # against the cell as the turn found it: the second edit's diff is 1 -> 3, not 2 -> 3
    last = diff_files(diffs[-1].unified_diff)
    assert [(f.path, f.kind, f.added, f.removed) for f in last.files] == [
        ("cell cell-0", "update", 1, 1),
        ("cell new-1", "add", 1, 0),
    ]
    assert "-total = 1\n+total = 3\n" in diffs[-1].unified_diff
    assert "+assert total == 3\n\\ No newline at end of file\n" in diffs[-1].unified_diff
    assert "changes: 2 files changed, +2 -1" in transcript.text()
    [changes] = timeline.turn_changes
    assert changes.turn_id == result.turn_id and (changes.added, changes.removed) == (2, 1)
