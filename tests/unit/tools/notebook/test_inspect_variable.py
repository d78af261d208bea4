"""``notebook.inspect_variable``: type, size, bounded repr; a raising or hanging ``__repr__`` is reported."""

from __future__ import annotations

import threading

from helpers.notebook_workspace import session_with


class Table:
    """A DataFrame-like object: shape, columns, dtypes, len."""

    shape = (3, 2)
    columns = ["city", "rain_mm"]
    dtypes = {"city": "str", "rain_mm": "float"}

    def __len__(self) -> int:
        return 3

    def __repr__(self) -> str:
        return "Table(3 rows)"


class Raising:
    @property
    def shape(self) -> tuple[int, int]:
        raise RuntimeError("shape is broken")

    def __repr__(self) -> str:
        raise ValueError("no repr for you")


async def test_a_dataframe_like_variable() -> None:
    session, ns = session_with(namespace={"df": Table()})
    result = await session.call_tool("notebook.inspect_variable", {"name": "df"})
    assert result.success is True
    assert result.output == (
        f"type: {Table.__module__}.Table\n"
        "shape: (3, 2)\n"
        "dtypes: {'city': 'str', 'rain_mm': 'float'}\n"
        "columns: ['city', 'rain_mm']\n"
        "len: 3\n"
        "repr: Table(3 rows)"
    )


async def test_raising_properties_and_repr_are_reported() -> None:
    session, _ = session_with(namespace={"bad": Raising()})
    result = await session.call_tool("notebook.inspect_variable", {"name": "bad"})
    assert "shape: <raised RuntimeError: shape is broken>" in result.output
    assert "repr: <__repr__ raised ValueError: no repr for you>" in result.output


async def test_a_hanging_repr_is_reported_and_interrupted() -> None:
    entered = threading.Event()

    class Hanging:
        def __repr__(self) -> str:
            entered.set()
            while True:
                pass

    session, _ = session_with(
        "[codex_nb.notebook_tools]\nenabled = true\nrepr_timeout_seconds = 0.5\n", namespace={"h": Hanging()}
    )
    result = await session.call_tool("notebook.inspect_variable", {"name": "h"})
    assert entered.is_set()
    assert result.output == (
        "inspecting `h` did not finish within 0.5 s (a hanging __repr__ or property); it was interrupted"
    )
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-inspect"]


async def test_a_huge_repr_is_bounded_with_a_marker() -> None:
    session, _ = session_with(namespace={"big": list(range(1_000_000))})
    result = await session.call_tool("notebook.inspect_variable", {"name": "big"})
    assert len(result.output) < 20_000
    assert "characters truncated]…" in result.output and "len: 1000000" in result.output


async def test_unknown_and_invalid_names() -> None:
    session, _ = session_with(namespace={"data": 1, "date": 2})
    missing = await session.call_tool("notebook.inspect_variable", {"name": "dta"})
    assert missing.output == "no variable named `dta` in the user namespace; names starting alike: data, date"
    invalid = await session.call_tool("notebook.inspect_variable", {"name": "os.system('x')"})
    assert invalid.output.startswith("`os.system('x')` is not a Python name")
