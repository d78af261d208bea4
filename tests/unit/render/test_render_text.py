"""The "Updated Plan" text cell and its textwrap emulation
(codex-rs/tui/src/history_cell/plans.rs, codex-rs/tui/src/wrapping.rs)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from uniseg.linebreak import line_break_boundaries

from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from codex_nb.render import plan_lines, raw_plan_lines, render_plan_ansi, render_plan_text
from codex_nb.render.wrap import (
    URL,
    _line_breaks,
    display_width,
    is_url_like_token,
    text_contains_url_like,
    textwrap_ranges,
    word_wrap,
)

# ---------------------------------------------------------------- the TUI's own snapshots

WRAPPING_ARGS = UpdatePlanArgs(
    explanation=(
        "I\u2019ll update Grafana call error handling by adding retries and clearer "
        "messages when the backend is unreachable."
    ),
    plan=[
        PlanItemArg(
            step="Investigate existing error paths and logging around HTTP timeouts",
            status=StepStatus.COMPLETED,
        ),
        PlanItemArg(
            step="Harden Grafana client error handling with retry/backoff and user\u2011friendly messages",
            status=StepStatus.IN_PROGRESS,
        ),
        PlanItemArg(
            step="Add tests for transient failure scenarios and surfacing to the UI",
            status=StepStatus.PENDING,
        ),
    ],
)
WRAPPING_SNAPSHOT = """\
• Updated Plan
  └ I’ll update Grafana call
    error handling by adding
    retries and clearer messages
    when the backend is
    unreachable.
    ✔ Investigate existing error
      paths and logging around
      HTTP timeouts
    □ Harden Grafana client
      error handling with retry/
      backoff and user‑friendly
      messages
    □ Add tests for transient
      failure scenarios and
      surfacing to the UI"""

NO_NOTE_ARGS = {
    "explanation": None,
    "plan": [
        {"step": "Define error taxonomy", "status": "in_progress"},
        {"step": "Implement mapping to user messages", "status": "pending"},
    ],
}
NO_NOTE_SNAPSHOT = """\
• Updated Plan
  └ □ Define error taxonomy
    □ Implement mapping to user messages"""


def test_note_and_wrapping_snapshot() -> None:
    assert render_plan_text(WRAPPING_ARGS, width=32) == WRAPPING_SNAPSHOT


def test_snapshot_column_checks() -> None:
    lines = WRAPPING_SNAPSHOT.split("\n")
    assert display_width(lines[3].removeprefix("    ")) == 28
    assert display_width(lines[6].removeprefix("    ✔ ")) == 26
    assert display_width(lines[10].removeprefix("      ")) == 26


def test_without_note_snapshot() -> None:
    assert render_plan_text(NO_NOTE_ARGS, width=40) == NO_NOTE_SNAPSHOT


def test_empty_plan_with_explanation() -> None:
    args = {"explanation": "Starting", "plan": []}
    assert render_plan_text(args, width=40) == "• Updated Plan\n  └ Starting\n    (no steps provided)"


@pytest.mark.parametrize("explanation", [None, "", "   \n\t "])
def test_empty_plan_without_explanation(explanation: str | None) -> None:
    args = {"explanation": explanation, "plan": []}
    assert render_plan_text(args) == "• Updated Plan\n  └ (no steps provided)"


def test_styled_spans() -> None:
    assert plan_lines(NO_NOTE_ARGS, 40) == [
        [("• ", "dim"), ("Updated Plan", "bold")],
        [("  └ ", "dim"), ("□ ", ""), ("Define error taxonomy", "cyan bold")],
        [("    ", ""), ("□ ", ""), ("Implement mapping to user messages", "dim")],
    ]
    styled = plan_lines(WRAPPING_ARGS, 32)
    assert styled[1] == [("  └ ", "dim"), ("I’ll update Grafana call", "dim italic")]
    assert styled[6] == [("    ", ""), ("✔ ", ""), ("Investigate existing error", "strike dim")]
    assert styled[7] == [("    ", ""), ("  ", ""), ("paths and logging around", "strike dim")]


def test_every_in_progress_step_is_cyan_bold() -> None:
    args = {"plan": [{"step": s, "status": "in_progress"} for s in ("a", "b", "c")]}
    assert [line[-1] for line in plan_lines(args)[1:]] == [(s, "cyan bold") for s in "abc"]


def test_ansi_rendering_wraps_each_styled_span() -> None:
    out = render_plan_ansi(NO_NOTE_ARGS, 40)
    assert out.split("\n")[1] == "\x1b[2m  └ \x1b[0m□ \x1b[36;1mDefine error taxonomy\x1b[0m"


# ---------------------------------------------------------------- raw lines (copy mode)


def test_raw_lines_example() -> None:
    assert raw_plan_lines(NO_NOTE_ARGS) == (
        "Updated Plan\nInProgress: Define error taxonomy\nPending: Implement mapping to user messages"
    )


def test_raw_lines_explanation_split_and_empty_plan() -> None:
    args = {"explanation": "  first line\nsecond line  ", "plan": []}
    assert raw_plan_lines(args) == "Updated Plan\nfirst line\nsecond line\n(no steps provided)"
    done = {"plan": [{"step": "x " * 50, "status": "completed"}]}
    assert raw_plan_lines(done) == "Updated Plan\nCompleted: " + "x " * 50


# ---------------------------------------------------------------- accepted inputs


def test_accepts_event_message_and_app_server_shapes() -> None:
    event = PlanUpdate.from_args(WRAPPING_ARGS)
    assert render_plan_text(event, 32) == WRAPPING_SNAPSHOT
    camel = {
        "explanation": None,
        "plan": [
            {"step": "Define error taxonomy", "status": "inProgress"},
            {"step": "Implement mapping to user messages", "status": "pending"},
        ],
    }
    assert render_plan_text(camel, 40) == NO_NOTE_SNAPSHOT
    params = {"threadId": "t", "turnId": "u", **camel}
    assert render_plan_text(params, 40) == NO_NOTE_SNAPSHOT
    notification = {"method": "turn/plan/updated", "params": params}
    assert render_plan_text(notification, 40) == NO_NOTE_SNAPSHOT


def test_wrong_type_raises_type_error_naming_the_fix() -> None:
    with pytest.raises(TypeError, match=r"cannot render a plan from list; pass an UpdatePlanArgs"):
        render_plan_text([{"step": "a", "status": "pending"}])
    with pytest.raises(TypeError, match="width must be an int"):
        render_plan_text(NO_NOTE_ARGS, width="80")  # type: ignore[arg-type]


def test_bad_dict_raises_value_error_naming_the_fix() -> None:
    with pytest.raises(ValueError, match=r"invalid plan dict \(plan\.0\.status: .*'in_progress'"):
        render_plan_text({"plan": [{"step": "a", "status": "doing"}]})
    with pytest.raises(ValueError, match=r"plan: Field required"):
        raw_plan_lines({"explanation": "no plan key"})


# ---------------------------------------------------------------- wrapping rules


def _cell_body(step: str, width: int) -> list[str]:
    text = render_plan_text({"plan": [{"step": step, "status": "pending"}]}, width)
    return text.split("\n")[1:]


def test_break_after_slash() -> None:
    assert _cell_body("aaaa bbbbbbbbb/cccccc", 18) == ["  └ □ aaaa", "      bbbbbbbbb/", "      cccccc"]


def test_no_break_inside_non_breaking_hyphen() -> None:
    assert _cell_body("abcde user-friendly", 19) == ["  └ □ abcde user-", "      friendly"]
    assert _cell_body("abcde user\u2011friendly", 19) == ["  └ □ abcde", "      user\u2011friendly"]


def test_hyphen_splits_only_between_alphanumerics() -> None:
    lines = [textwrap_slices(t, 7) for t in ("hello-world", "hello--world", "2026-02-17 x")]
    assert lines == [["hello-", "world"], ["hello--", "world"], ["2026-", "02-17 x"]]


def test_east_asian_wide_characters_use_two_columns() -> None:
    note = "这是一个很长的中文解释，用来测试东亚宽字符的换行行为。"
    text = render_plan_text({"explanation": note, "plan": []}, 20)
    assert text.split("\n")[1:] == [
        "  └ 这是一个很长的中",
        "    文解释，用来测试",
        "    东亚宽字符的换行",
        "    行为。",
        "    (no steps provided)",
    ]
    assert textwrap_slices("😀😀😀", 4) == ["😀😀", "😀"]


NOTE_URL = "example.test/api/v1/projects/alpha-team/releases/2026-02-17/builds/1234567890"
STEP_URL = "example.test/api/v1/projects/beta-team/releases/2026-02-17/builds/0987654321/artifacts/reports/performance"


def test_url_like_tokens_are_never_split() -> None:
    args = {
        "explanation": f"Investigate failures under {NOTE_URL} immediately.",
        "plan": [{"step": f"Validate callbacks under {STEP_URL} before rollout.", "status": "in_progress"}],
    }
    lines = render_plan_text(args, 30).split("\n")
    assert lines == [
        "• Updated Plan",
        "  └ Investigate failures under",
        f"    {NOTE_URL}",
        "    immediately.",
        "    □ Validate callbacks under",
        f"      {STEP_URL}",
        "      before rollout.",
    ]
    assert sum(NOTE_URL in line for line in lines) == 1
    assert sum(STEP_URL in line for line in lines) == 1


def test_url_detection_heuristics() -> None:
    for token in (
        "https://x.y",
        "(www.example.com)",
        "localhost:3000/api",
        "10.0.0.1:8080/health",
        "myapp://open",
        "example.com/path?q=1",
    ):
        assert is_url_like_token(token), token
    for token in ("src/main.rs", "foo/bar", "http://", "example.com", "a.b/c", "host:99999/x"):
        assert not is_url_like_token(token), token
    assert text_contains_url_like("see https://openai.com now")
    assert not text_contains_url_like("retry/backoff and user-friendly")


def test_url_mode_uses_ascii_spaces_and_keeps_long_words_whole() -> None:
    text = "see example.com/a-b-c supercalifragilistic"
    assert [text[a:b] for a, b in word_wrap(text, 10, mode=URL)] == [
        "see",
        "example.com/a-b-c",
        "supercalifragilistic",
    ]


def test_very_long_words_are_broken() -> None:
    assert _cell_body("supercalifragilisticexpialidocious", 14) == [
        "  └ □ supercal",
        "      ifragili",
        "      sticexpi",
        "      alidocio",
        "      us",
    ]


def test_html_like_text_is_passed_through_literally() -> None:
    out = render_plan_text({"plan": [{"step": "<b>bold</b> & <script>x</script>", "status": "pending"}]})
    assert out.endswith("  └ □ <b>bold</b> & <script>x</script>")


def test_embedded_newlines_are_hard_breaks() -> None:
    args = {"explanation": "line one\nline two", "plan": [{"step": "first\nsecond", "status": "completed"}]}
    assert render_plan_text(args, 40).split("\n")[1:] == [
        "  └ line one",
        "    line two",
        "    ✔ first",
        "      second",
    ]


def test_empty_step_keeps_its_glyph() -> None:
    assert _cell_body("", 40) == ["  └ □ "]


@pytest.mark.parametrize("width", [-3, 0, 1, 4, 5])
def test_tiny_widths_still_render(width: int) -> None:
    args = {"explanation": "hi you", "plan": [{"step": "ab", "status": "pending"}]}
    assert render_plan_text(args, width).split("\n")[1:] == [
        "  └ h",
        "    i",
        "    y",
        "    o",
        "    u",
        "    □ a",
        "      b",
    ]


def test_ansi_escapes_have_no_width() -> None:
    assert display_width("a\x1b[31mred\x1b[0m") == 4
    assert textwrap_slices("a\x1b[31mred\x1b[0m word here", 6) == ["a\x1b[31mred\x1b[0m", "word", "here"]


# Ported from codex-rs/tui/src/wrapping.rs unit tests.
@pytest.mark.parametrize(
    ("text", "width", "indents", "expected"),
    [
        ("hello", 10, (0, 0), ["hello"]),
        ("hello world", 5, (0, 0), ["hello", "world"]),
        ("hello world foo", 8, (2, 2), ["hello", "world", "foo"]),
        ("", 10, (0, 0), [""]),
        ("   hello", 8, (0, 0), ["   hello"]),
        ("hello   world", 8, (0, 0), ["hello", "world"]),
        ("hello-world", 7, (0, 0), ["hello-", "world"]),
        ("hello", 4, (4, 2), ["h", "el", "lo"]),
        ("abcd", 2, (0, 0), ["ab", "cd"]),
    ],
)
def test_codex_word_wrap_line_cases(text: str, width: int, indents: tuple[int, int], expected: list[str]) -> None:
    first, rest = indents
    ranges = word_wrap(text, width, initial_indent_width=first, subsequent_indent_width=rest)
    assert [text[a:b] for a, b in ranges] == expected


def textwrap_slices(text: str, width: int) -> list[str]:
    return [text[a:b] for a, b in textwrap_ranges(text, width)]


# ---------------------------------------------------------------- scale and properties


def test_thousand_steps_render() -> None:
    statuses = ["completed", "in_progress", "pending"]
    plan = [{"step": f"Step {i:04d}: do the thing carefully", "status": statuses[i % 3]} for i in range(1000)]
    lines = render_plan_text({"plan": plan}, 30).split("\n")
    assert len(lines) == 1 + 2 * 1000
    assert lines[-1] == "      carefully"


_ALPHABET = st.sampled_from(list("abcdefghij ABC---///..,,()") + ["中", "文", "😀", "\u2011", "’", "é", "\n"])


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(st.text(_ALPHABET, max_size=80), min_size=2, max_size=4),
    width=st.integers(min_value=8, max_value=100),
)
def test_lines_fit_the_width(texts: list[str], width: int) -> None:
    # Step text width; the note gets two more columns. "(no steps provided)" is never
    # wrapped in Codex, so every example has at least one step.
    wrap_width = width - 4 - 2
    for text in texts:
        if text_contains_url_like(text):
            assume(all(display_width(tok) <= wrap_width for tok in text.split()))
    args = {"explanation": texts[0], "plan": [{"step": t, "status": "pending"} for t in texts[1:]]}
    for line in render_plan_text(args, width).split("\n")[1:]:
        assert display_width(line) <= width, (line, width)


_UAX14_ALPHABET = st.sampled_from(
    list("aX09 \t-/.,:;!?()[]{}$+%\\\"'&|")
    + ["\u2011", "\u00a0", "中", "。", "…", "—", "\u2010", "（", "）", "§", "・", "ー", "´", "\u3000"]
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(_UAX14_ALPHABET, min_size=1, max_size=16))
def test_fast_line_breaks_agree_with_uniseg(text: str) -> None:
    assert _line_breaks(text) == list(line_break_boundaries(text))


def test_ascii_tables_agree_with_uniseg_and_wcwidth() -> None:
    """ASCII widths and line-break classes are tabulated so plain plans render without importing
    wcwidth and uniseg; the tables must say what the libraries say, character by character."""
    from uniseg.linebreak import category, east_asian_width, line_break
    from wcwidth import wcwidth

    from codex_nb.render.wrap import _ASCII_LB, _EAST_ASIAN, _GLYPHS, _char_width, _east_asian, _lb_class

    assert len(_ASCII_LB) == 128
    for code in range(128):
        ch = chr(code)
        expected = line_break(ch).name
        expected = {"AI": "AL", "SG": "AL", "XX": "AL", "CJ": "NS"}.get(expected, expected)
        if expected == "QU" and category(ch).name in ("PI", "PF"):
            expected = "QU-initial-final"
        assert _lb_class(ch) == expected, repr(ch)
        assert _char_width(ch) == max(wcwidth(ch), 0), repr(ch)
        assert _east_asian(ch) == (east_asian_width(ch).name in _EAST_ASIAN), repr(ch)
    for glyph in _GLYPHS:
        assert _char_width(glyph) == wcwidth(glyph) == 1, glyph


def test_ascii_plans_render_without_the_unicode_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys, codex_nb as cx; print(cx.render.render_plan_text({'explanation': 'Tidy (fast), then test: 2/3', "
        "'plan': [{'step': 'Read the README-file', 'status': 'completed'}]}, width=20)); "
        "assert 'wcwidth' not in sys.modules and 'uniseg' not in sys.modules, 'loaded for ASCII'; "
        "cx.render.render_plan_text({'plan': [{'step': '中文 step ' * 8, 'status': 'pending'}]}, width=20); "
        "assert 'wcwidth' in sys.modules and 'uniseg' in sys.modules"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "Updated Plan" in out.stdout
