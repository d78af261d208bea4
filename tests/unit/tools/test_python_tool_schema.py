"""``@session.tool`` describes each argument: defaults, ``Annotated[..., Field(description=...)]``
and Google/NumPy docstring sections (Codex's schemas have no ``default``: it goes in the description)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

import codex_nb as cx


def parameters(session: cx.Session, name: str) -> dict:
    spec = next(s for s in session.tool_plan().specs if s.get("name") == name)
    return spec["parameters"]


async def test_defaults_annotated_descriptions_and_google_args():
    session = cx.Session()

    @session.tool
    def search(
        query: Annotated[str, Field(description="What to look for.")], limit: int = 3, exact: bool = False
    ) -> str:
        """Search the notes.

        Args:
            query: overridden by the Annotated description.
            limit: How many hits
                to return.
        """
        return f"{query}:{limit}:{exact}"

    assert parameters(session, "search") == {
        "type": "object",
        "properties": {
            "exact": {"type": "boolean", "description": "Default: false."},
            "limit": {"type": "integer", "description": "How many hits to return (default: 3)."},
            "query": {"type": "string", "description": "What to look for."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert (await session.call_tool("search", {"query": "q"})).output == "q:3:False"


def test_numpy_parameters_section():
    session = cx.Session()

    @session.tool
    def scale(value: float, factor: float = 2.0) -> float:
        """Scale a value.

        Parameters
        ----------
        value : float
            The number to scale.
        factor : float
            Multiplier.

        Returns
        -------
        float
        """
        return value * factor

    props = parameters(session, "scale")["properties"]
    assert props["value"]["description"] == "The number to scale."
    assert props["factor"]["description"] == "Multiplier (default: 2.0)."
