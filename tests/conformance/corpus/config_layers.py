"""A Codex home and a project tree: which config layers count (trust), in which order, what ``-c``
overrides do, and where each hook came from (``source``, ``sourcePath``).

Every name starts with ``layers_``: ``bash .ci/conformance --record -k layers_`` re-records them all."""

from __future__ import annotations

import json

from ..scenario import Scenario
from ._build import DONE, call

P = {"plan": [{"step": "a", "status": "pending"}]}
REPO = {
    "work/repo/.git/HEAD": "ref: refs/heads/main\n",
    "work/repo/.codex/config.toml": 'model = "root-model"\nmodel_reasoning_effort = "low"\n',
    "work/repo/sub/.codex/config.toml": 'model = "sub-model"\n',
    "work/repo/sub/deep/": "",
}
DEEP = "repo/sub/deep"


def trust(path: str, level: str = "trusted") -> str:
    return f'\n[projects."<WORK>/{path}"]\ntrust_level = "{level}"\n'


def block_hook(message: str) -> str:
    return json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "update_plan", "hooks": [{"type": "command", "command": "{scripts}/hook.sh"}]}
                ]
            }
        }
    ).replace("{scripts}", "<SCRIPTS>")


BLOCK = "#!/bin/sh\ncat > /dev/null\necho 'project says no' >&2\nexit 2\n"


def layered(
    name: str, *, config: str = "", files: dict[str, str] | None = None, base: dict[str, str] = REPO, **kw: object
) -> Scenario:
    return Scenario(
        name=name,
        config="\n" + config + "\n[tools.update_plan]\nenabled = true\n",  # root keys before any table
        files={**base, **(files or {})},
        cwd=kw.pop("cwd", DEEP),  # type: ignore[arg-type]
        responses=kw.pop("responses", [DONE]),  # type: ignore[arg-type]
        tags=("config",),
        **kw,  # type: ignore[arg-type]
    )


SCENARIOS = [
    layered("layers_trusted_repo", config=trust("repo")),
    layered("layers_untrusted_repo"),
    layered("layers_explicitly_untrusted", config=trust("repo", "untrusted")),
    layered("layers_trust_on_subfolder_only", config=trust("repo/sub")),
    layered("layers_trust_on_cwd_only", config=trust(DEEP)),
    layered(
        "layers_git_dir_without_head",
        config=trust("repo"),
        base={k: v for k, v in REPO.items() if not k.endswith("HEAD")},
        files={"work/repo/.git/": ""},
        cwd="repo/sub",
    ),
    layered(
        "layers_custom_root_marker",
        config='project_root_markers = [".hg"]\n' + trust("repo"),
        files={"work/repo/.hg/": ""},
    ),
    layered(
        "layers_project_cannot_set_denylisted_keys",
        config=trust("repo"),
        files={"work/repo/.codex/config.toml": 'model = "root-model"\nnotify = ["/bin/true"]\n'},
    ),
    layered(
        "layers_untrusted_malformed_project_is_skipped",
        files={"work/repo/sub/.codex/config.toml": "model = [unclosed\n"},
    ),
    layered(
        "layers_cli_overrides",
        config=trust("repo"),
        overrides=(
            'model="override-model"',
            "model_reasoning_effort=high",
            "tools.update_plan.enabled=true",
            "sandbox_mode=workspace-write",
        ),
    ),
    layered(
        "layers_hook_source_project_trusted",
        config=trust("repo"),
        files={"work/repo/.codex/hooks.json": block_hook("project says no")},
        scripts={"hook.sh": BLOCK},
        responses=[[call("update_plan", P)], DONE],
    ),
    layered(
        "layers_hook_source_project_untrusted",
        files={"work/repo/.codex/hooks.json": block_hook("project says no")},
        scripts={"hook.sh": BLOCK},
        responses=[[call("update_plan", P)], DONE],
    ),
    layered(
        "layers_hook_source_user_config_toml",
        config=(
            "\n[[hooks.PreToolUse]]\n"
            'matcher = "update_plan"\n'
            '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "<SCRIPTS>/hook.sh"\n'
        ),
        scripts={"hook.sh": BLOCK},
        responses=[[call("update_plan", P)], DONE],
    ),
    layered(
        "layers_hook_source_project_config_toml_subfolder",
        config=trust("repo"),
        files={
            "work/repo/sub/.codex/config.toml": (
                'model = "sub-model"\n[[hooks.PreToolUse]]\nmatcher = "update_plan"\n'
                '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "<SCRIPTS>/hook.sh"\n'
            )
        },
        scripts={"hook.sh": BLOCK},
        responses=[[call("update_plan", P)], DONE],
    ),
]
