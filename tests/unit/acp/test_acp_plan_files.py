"""A plan file an agent names (Gemini CLI's exit_plan_mode) is read only where it is safe: a regular
``.md`` file, resolved inside the session's folder or the agent's plans folder of this session,
bounded, never a FIFO, a device, a symlink out or another session's plan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codex_nb.acp import quirks
from codex_nb.acp.plan_files import MAX_PLAN_BYTES, PlanFileError, PlanFolders, read_plan_file, read_plan_file_now

PLAN = "# Plan\n\n1. Write hello.txt\n"


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path, PlanFolders]:
    """The session's folder, the agent's plans folder of session ``s-1`` and their ``PlanFolders``."""
    work, home = tmp_path / "work", tmp_path / "home"
    plans = home / ".gemini" / "tmp" / "work" / "s-1" / "plans"
    work.mkdir()
    plans.mkdir(parents=True)
    return work, plans, PlanFolders.of(session_folder=str(work), session_id="s-1", env={"HOME": str(home)})


def test_the_title_names_the_plan_file_only_in_gemini_clis_words() -> None:
    assert (
        quirks.plan_file("Requesting plan approval for: /h/.gemini/tmp/p/s/plans/a.md")
        == "/h/.gemini/tmp/p/s/plans/a.md"
    )
    assert quirks.plan_file("Requesting plan approval for:   ") is None
    assert quirks.plan_file("Write /tmp/a.md") is None and quirks.plan_file(None) is None


def test_a_plan_in_the_session_folder_or_the_sessions_plans_folder_is_read(
    place: tuple[Path, Path, PlanFolders],
) -> None:
    work, plans, folders = place
    (work / "docs").mkdir()
    (work / "docs" / "plan.md").write_text(PLAN, encoding="utf-8")
    (plans / "greeting.md").write_text(PLAN, encoding="utf-8")
    assert read_plan_file_now(str(work / "docs" / "plan.md"), folders) == PLAN
    assert read_plan_file_now(str(plans / "greeting.md"), folders) == PLAN
    # GEMINI_CLI_HOME comes before HOME, as Gemini CLI reads it
    other = PlanFolders.of(
        session_folder=str(work), session_id="s-1", env={"HOME": "/nowhere", "GEMINI_CLI_HOME": str(plans.parents[4])}
    )
    assert read_plan_file_now(str(plans / "greeting.md"), other) == PLAN


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("passwd", "not a Markdown"),
        ("relative", "not absolute"),
        ("dotdot", "outside the session's folder"),
        ("symlink_out", "outside the session's folder"),
        ("other_session", "outside the session's folder"),
        ("plans_root", "outside the session's folder"),
        ("fifo", "not a regular file"),
        ("folder", "not a regular file"),
        ("device", "link to a file that is not a Markdown"),
        ("symlink_to_env", "link to a file that is not a Markdown"),
        ("missing", "cannot be found"),
        ("empty", "empty"),
        ("nul", "not text"),
    ],
)
def test_a_hostile_path_is_refused_and_says_why(
    place: tuple[Path, Path, PlanFolders], tmp_path: Path, name: str, why: str
) -> None:
    work, plans, folders = place
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET", encoding="utf-8")
    (work / "link.md").symlink_to(outside / "secret.md")
    (work / "zero.md").symlink_to("/dev/zero")
    (work / ".env").write_text("API_KEY=sk-secret", encoding="utf-8")
    (work / "plan.md").symlink_to(work / ".env")  # inside the folder, and still not a plan
    os.mkfifo(work / "fifo.md")  # a reader that opened it blocking would wait for a writer forever
    (work / "folder.md").mkdir()
    (work / "empty.md").write_text("  \n", encoding="utf-8")
    elsewhere = plans.parent.parent / "s-2" / "plans"
    elsewhere.mkdir(parents=True)
    (elsewhere / "theirs.md").write_text(PLAN, encoding="utf-8")
    (plans.parent.parent / "loose.md").write_text(PLAN, encoding="utf-8")
    path = {
        "passwd": "/etc/passwd",
        "relative": "plan.md",
        "dotdot": f"{work}/../outside/secret.md",
        "symlink_out": str(work / "link.md"),
        "other_session": str(elsewhere / "theirs.md"),
        "plans_root": str(plans.parent.parent / "loose.md"),
        "fifo": str(work / "fifo.md"),
        "folder": str(work / "folder.md"),
        "device": str(work / "zero.md"),
        "symlink_to_env": str(work / "plan.md"),
        "missing": str(work / "gone.md"),
        "empty": str(work / "empty.md"),
        "nul": f"{work}/a\x00.md",
    }[name]
    with pytest.raises(PlanFileError, match=why):
        read_plan_file_now(path, folders)


def test_a_huge_plan_is_cut_and_says_so(place: tuple[Path, Path, PlanFolders]) -> None:
    work, _plans, folders = place
    (work / "big.md").write_bytes(b"x" * (MAX_PLAN_BYTES + 10))
    text = read_plan_file_now(str(work / "big.md"), folders)
    assert text.startswith("x" * 100) and text.endswith("the rest is not shown]")
    assert len(text) < MAX_PLAN_BYTES + 200


async def test_the_file_is_read_off_the_event_loop_and_given_up_when_slow(
    place: tuple[Path, Path, PlanFolders], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from codex_nb.acp import plan_files

    work, _plans, folders = place
    (work / "plan.md").write_text(PLAN, encoding="utf-8")
    loop_thread = threading.get_ident()
    seen: list[int] = []
    stuck = threading.Event()
    real = plan_files.read_plan_file_now

    def slow(path: str, where: PlanFolders) -> str:
        seen.append(threading.get_ident())
        if "slow" in path:
            stuck.wait(30)  # a read that hangs (a hung network folder) until the test lets it go
        return real(path.replace("slow", "plan"), where)

    monkeypatch.setattr(plan_files, "read_plan_file_now", slow)
    assert await read_plan_file(str(work / "plan.md"), folders) == PLAN
    try:
        with pytest.raises(PlanFileError, match="took over 0.05 s"):
            await read_plan_file(str(work / "slow.md"), folders, timeout=0.05)
    finally:
        stuck.set()
    assert seen and loop_thread not in seen
