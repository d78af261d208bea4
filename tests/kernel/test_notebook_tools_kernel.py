"""The notebook tools in a real ipykernel with no front end (as under nbval): run_code captures its
own prints and displays (an image comes back as an image) while the kernel's other output stays
where it was; the document tools answer, after one bounded wait, that no page can serve them.
"""

from __future__ import annotations

import json

import pytest

from helpers.kernels import run_cell

pytestmark = pytest.mark.kernel

SETUP = """
import codex_nb as cx
config = cx.Config.from_toml('''
[codex_nb.notebook_tools]
enabled = true
frontend_timeout_seconds = 1
[codex_nb.notebook_tools.approve]
run_code = false
''')
session = cx.Session(config=config)
rows = [{"city": "Oslo", "rain_mm": 2.5}, {"city": "Lima", "rain_mm": 0.0}]
"""

CODE = (
    "from IPython.display import display, Image\\n"
    "print('rows', len(rows))\\n"
    "display(Image(data=bytes.fromhex('89504e470d0a1a0a') + bytes(32), format='png'))\\n"
    "rows[0]['city']"
)


def test_run_code_captures_its_prints_and_displays(kernel) -> None:
    run_cell(kernel, SETUP)
    out, kinds = run_cell(
        kernel,
        f'result = await session.call_tool("notebook.run_code", {{"code": "{CODE}"}})\n'
        "import json\nprint(json.dumps(result.output))\nprint([part['type'] for part in result.item['output']])",
    )
    lines = out.strip().splitlines()
    output = json.loads(lines[0])
    assert output.startswith("Wall time: ") and output.endswith(
        "Process exited with code 0\nOutput:\nrows 2\n[display text/plain]\n<IPython.core.display.Image object>\nOut: 'Oslo'"
    )
    assert lines[1] == "['input_text', 'input_image']"
    assert "display_data" not in kinds  # the agent's display went to the agent, not into this cell


def test_document_tools_without_a_page_say_so_and_stop_waiting(kernel) -> None:
    out, _ = run_cell(
        kernel,
        "first = await session.call_tool('notebook.list_cells', {})\n"
        "second = await session.call_tool('notebook.read_cell', {'index': 0})\n"
        "print(first.output)\nprint(second.output)",
    )
    first, second = out.strip().splitlines()
    assert first.startswith("the notebook document is not reachable from this kernel")
    assert first.endswith("(no page answered within 1 s)")
    assert second.startswith("the notebook document is not reachable") and "within" not in second
