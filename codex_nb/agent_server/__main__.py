"""``python -m codex_nb.agent_server --script responses.json``: codex_nb as an ACP agent on stdio.

The script is a JSON list of model responses, each a list of Responses-API output
items (what ``cx.function_call`` / ``cx.assistant_message`` make), consumed in order
across the process's prompts. For a real model, call ``codex_nb.agent_server.serve(model)``
from your own script with any object that has ``async sample(request)``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m codex_nb.agent_server", description="Serve codex_nb's runtime as an ACP agent on stdin/stdout."
    )
    parser.add_argument(
        "--script", required=True, type=Path, help="JSON file: a list of model responses, each a list of output items"
    )
    parser.add_argument("--config", type=Path, help="a Codex config.toml for the sessions (default: cx.Config())")
    args = parser.parse_args(argv)
    try:
        responses = json.loads(args.script.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        parser.error(f"--script {args.script}: cannot read a JSON list of responses: {err}")
    from ..config import Config
    from ..runtime.models import ScriptedModel
    from . import serve

    config = None
    if args.config is not None:
        try:
            config = Config.from_toml(args.config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            parser.error(f"--config {args.config}: {err}")
    asyncio.run(serve(ScriptedModel(responses), config=config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
