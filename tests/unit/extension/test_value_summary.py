"""``%%codex --vars`` with the values people keep in notebooks: a pandas Series (a TypeError
traceback before), wide and MultiIndex DataFrames, numpy arrays whatever the print options, polars
frames, a 100,000-digit int, an object whose repr raises or is huge. Each is a bounded summary;
nothing raises out of the magic. pandas, numpy and polars are in the test extra: a run without
them skips, and under ``CI=true`` fails."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb.extension.context import MAX_TEXT, describe
from codex_nb.extension.value_summary import summarize
from helpers.binary_requirements import in_ci


def library(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError:
        if in_ci():
            pytest.fail(f"{name} is missing: it is in the test extra (pip install -e '.[test]')", pytrace=False)
        pytest.skip(f"{name} is not installed: pip install -e '.[test]'")


@pytest.mark.slow  # imports pandas / numpy / polars
def test_pandas_values_are_bounded_tables() -> None:
    pd = library("pandas")
    notes: list[str] = []
    series = describe("s", pd.Series(range(1_000), name="n"), notes)
    assert series.label == "s: Series (1000,) int64"
    assert (
        series.text.startswith("Series 'n' of length 1,000, dtype int64; first 20 values:") and "19  19" in series.text
    )
    wide = describe("w", pd.DataFrame([[i] * 5_000 for i in range(100)]), notes)
    assert wide.label == "w: DataFrame (100, 5000)" and "first 20 rows and first 20 of 5,000 columns" in wide.text
    assert len(wide.text) < MAX_TEXT + 100
    columns = pd.MultiIndex.from_product([["a", "b"], ["x", "y"]])
    multi = describe("m", pd.DataFrame([[1, 2, 3, 4]] * 30, columns=columns, index=pd.MultiIndex.from_product([range(15), ["p", "q"]])), notes)  # fmt: skip
    assert multi.label == "m: DataFrame (30, 4)" and "DataFrame of shape (30, 4)" in multi.text
    long_text = describe("t", pd.DataFrame({"t": ["z" * 100_000] * 3}), notes)
    assert "z" * 61 not in long_text.text
    assert notes == []


@pytest.mark.slow  # imports pandas / numpy / polars
def test_numpy_arrays_are_summarised_whatever_the_print_options() -> None:
    np = library("numpy")
    notes: list[str] = []
    with np.printoptions(threshold=10**9):
        big = describe("a", np.arange(1_000_000).reshape(1_000, 1_000), notes)
    assert big.label == "a: ndarray (1000, 1000) int64" and "..." in big.text and len(big.text) < 1_000
    deep = describe("d", np.zeros((6,) * 10), notes)
    assert "its first values, flat" in deep.text and len(deep.text) < MAX_TEXT
    objects = describe("o", np.array(["q" * 10_000, None], dtype=object), notes)
    assert len(objects.text) < 300
    assert notes == []


@pytest.mark.slow  # imports pandas / numpy / polars
def test_polars_frames_are_bounded_tables() -> None:
    pl = library("polars")
    notes: list[str] = []
    frame = describe("p", pl.DataFrame({f"c{i}": range(1_000) for i in range(50)}), notes)
    assert frame.label == "p: polars DataFrame (1000, 50)" and "first 20 rows and first 20 of 50 columns" in frame.text
    series = describe("ps", pl.Series("v", range(1_000)), notes)
    assert series.label.startswith("ps: polars Series (1,000,)") and "first 20 values" in series.text
    assert notes == []


class BadRepr:
    def __repr__(self) -> str:
        raise ValueError("boom")


class HugeRepr:
    def __repr__(self) -> str:
        return "h" * 5_000_000


def test_objects_whose_repr_raises_or_is_huge_and_huge_ints() -> None:
    notes: list[str] = []
    bad = describe("b", BadRepr(), notes)
    assert bad.text == "<BadRepr object: its repr raised ValueError: boom>"
    huge = describe("h", HugeRepr(), notes)
    assert len(huge.text) < MAX_TEXT + 100 and huge.truncated
    number = describe("n", 10**100_000, notes)
    assert number.text.startswith("<int of 332,193 bits")
    nested = describe("l", [BadRepr(), 1], notes)
    assert "its repr raised ValueError: boom" in nested.text
    assert notes == [
        "b: its repr raised ValueError: boom: sent as its type only",
        "h was cut to 4,000 of its 5,000,000 characters",
    ]


def test_a_summary_that_fails_says_so_and_never_raises() -> None:
    class Shape:
        @property
        def shape(self) -> Any:
            raise RuntimeError("lazy frame")

        def head(self, n: int) -> Any:
            return self

        def to_string(self) -> str:
            return "x"

    assert "its summary failed (RuntimeError: lazy frame)" in summarize(Shape()).text


@pytest.mark.slow  # imports pandas / numpy / polars
async def test_codex_vars_with_a_series_runs_the_turn(shell: InteractiveShell) -> None:
    pd = library("pandas")
    np = library("numpy")
    shell.user_ns.update(s=pd.Series([1.5, 2.5], name="price"), a=np.ones(3))
    model = cx.ScriptedModel([[cx.assistant_message("seen")]], record_requests=True)
    shell.user_ns["m"] = model
    shell.run_cell_magic("codex", "--model m --vars s,a --out turn", "Sum them")
    assert (await shell.user_ns["turn"]).status == "completed"
    sent = model.requests[0].items[-1]["content"][0]["text"]
    assert "[s: Series (2,) float64]\nSeries 'price' of length 2, dtype float64" in sent
    assert "[a: ndarray (3,) float64]\narray of shape (3,), dtype float64:\n[1. 1. 1.]" in sent
