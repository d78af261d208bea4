"""codex_nb against the observations recorded from the pinned Codex (tests/conformance/expected/).

Each scenario is one test; a failure shows the differing fields as unified diffs
(expected = the pinned Codex, ``.ci/codex-version``; actual = codex_nb). The binary itself is played by
``bash .ci/conformance`` (also part of ``.ci/test``), which reports drift of either side.
"""

from __future__ import annotations

import pytest

from . import expected_store, observe_nb
from .compare import compare
from .corpus import SCENARIOS

SPECS = expected_store.load_specs()


def test_corpus_is_large_and_recorded() -> None:
    assert len(SCENARIOS) >= 100
    missing = [s.name for s in SCENARIOS if expected_store.load(s.name, SPECS) is None]
    assert not missing, f"no recording for {missing}; run: bash .ci/conformance --record"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_codex_nb_matches_codex(scenario) -> None:  # type: ignore[no-untyped-def]
    expected = expected_store.load(scenario.name, SPECS)
    assert expected is not None, "run: bash .ci/conformance --record"
    bad = [c for c in compare(scenario, observe_nb.observe(scenario), expected) if not c.ok]
    assert not bad, "\n\n".join(f"{c.field}:\n{c.diff}" for c in bad)
