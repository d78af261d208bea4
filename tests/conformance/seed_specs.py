"""Copy the seed tools' specs from the pinned binary into codex_nb: ``python -m conformance.seed_specs``.

``web.run`` and ``image_gen.imagegen`` are declared from ``codex_nb/tools/handlers/seed_tool_specs.json``,
which holds what the binary sends in scenario ``seed_both_declared`` (both gates open), in the
binary's key order (the recording in ``expected/`` sorts keys, so this plays the scenario live).
``bash .ci/rerecord`` runs it, so a bump that changes either spec changes codex_nb's copy too
(and ``git diff`` shows it); the conformance run then checks the copy against the recording.
"""

from __future__ import annotations

import json
import sys

from codex_nb.testing import pinned_codex_version
from codex_nb.tools.handlers.seed_tools import SPECS_FILE

from . import observe_codex
from .corpus import SCENARIOS

SOURCE_SCENARIO = "seed_both_declared"


def specs_from_recording() -> dict[str, object]:
    scenario = next(s for s in SCENARIOS if s.name == SOURCE_SCENARIO)
    tools = observe_codex.observe(scenario)["tools"]["default"]
    return {
        "codex_version": pinned_codex_version(),
        "recorded_by": f"the first request body of tests/conformance scenario {SOURCE_SCENARIO} "
        "(python -m conformance.seed_specs)",
        "web": {"namespace_description": tools["web (namespace)"]["description"], "tool": tools["web.run"]},
        "image_gen": {
            "namespace_description": tools["image_gen (namespace)"]["description"],
            "tool": tools["image_gen.imagegen"],
        },
    }


def main() -> int:
    SPECS_FILE.write_text(json.dumps(specs_from_recording(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SPECS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
