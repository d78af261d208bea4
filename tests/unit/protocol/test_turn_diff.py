"""``turn_diff``'s reading of a unified diff (files, added and removed lines) and its bounds."""

from __future__ import annotations

from codex_nb.protocol.turn_diff import MAX_TURN_DIFF_CHARS, bounded_diff, diff_files, summary_lines

DIFF = (
    "diff --git a/app.py b/app.py\nindex 1..2 100644\n--- a/app.py\n+++ b/app.py\n@@ -1 +1,2 @@\n-x = 1\n+x = 2\n+y = 3\n"
    "diff --git a/notes.txt b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,2 @@\n"
    "+first\n++++ pluses\n"
    "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
)


def test_a_git_diff_reads_as_files_with_their_lines() -> None:
    summary = diff_files(DIFF)
    assert [(f.path, f.kind, f.added, f.removed) for f in summary.files] == [
        ("app.py", "update", 2, 1),
        ("notes.txt", "add", 2, 0),
        ("old.txt", "delete", 0, 1),
    ]
    assert summary.headline() == "3 files changed, +4 -2"
    assert summary.files[0].diff.startswith("diff --git a/app.py") and summary.files[0].diff.endswith("+y = 3")
    assert summary_lines(summary) == ["  update app.py +2 -1", "  add notes.txt +2 -0", "  delete old.txt +0 -1"]


def test_plain_diffs_binary_files_and_nothing() -> None:
    plain = diff_files("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n")
    assert [(f.path, f.added, f.removed) for f in plain.files] == [("x", 1, 1), ("y", 1, 1)]
    binary = diff_files("diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n")
    assert [(f.path, f.kind, f.added) for f in binary.files] == [("img.png", "update", 0)]
    assert diff_files("").headline() == "no changes" and diff_files("just words\n").files == ()


def test_a_diff_of_many_files_lists_the_first_and_counts_the_rest() -> None:
    many = "".join(f"--- a/f{i}\n+++ b/f{i}\n@@ -1 +1 @@\n-a\n+b\n" for i in range(12))
    summary = diff_files(many, max_files=10)
    assert len(summary.files) == 10 and summary.more_files == 2
    assert summary.headline().startswith("12 files changed")
    assert summary_lines(summary, cut_chars=5)[-2:] == [
        "  ... 2 more file(s) not listed",
        f"  (the diff was cut: 5 characters past the first {MAX_TURN_DIFF_CHARS} not kept)",
    ]


def test_bounded_diff_cuts_at_a_line_end_and_counts_the_rest() -> None:
    assert bounded_diff("a\nb\n", limit=10) == ("a\nb\n", 0)
    assert bounded_diff("aaaa\nbbbb\ncccc\n", limit=12) == ("aaaa\nbbbb\n", 5)
    assert bounded_diff("x" * 20, limit=8) == ("x" * 8, 12)  # one long line: cut inside it
