"""The index builder's fast word split and shared word cache give exactly the tokens ``tokenize`` gives.

The reference is the plain regex split the tokenizer always used (``\\w+`` glued across UAX #29
MidLetter/MidNum characters): the fast path must agree with it on any text, and a shard built with
the cross-shard word cache must hold the same postings as one built token by token.
"""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from codex_nb.tools.search import tokenize as tokenizer
from codex_nb.tools.search.index import SearchIndex
from codex_nb.tools.search.tokenize import tokenize, words

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


REFERENCE_GLUE = re.compile(r"\w['.:,;]\w")
TEXT = st.text(
    alphabet=st.sampled_from(list("abcAZ09_ '.:,;-\t\n\x00\x1c\x1f/é字") + ["ß", "İ", "\u2028"]), max_size=60
)


def reference_words(text: str) -> list[str]:
    if not text.isascii():
        text = tokenizer._transliterate()(text)
    return tokenizer._WORD.findall(text.lower())


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_fast_split_equals_the_regex_split(text: str) -> None:
    assert words(text) == reference_words(text)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_glue_check_finds_what_the_reference_pattern_finds(text: str) -> None:
    lowered = text.lower()
    assert bool(tokenizer._GLUE.search(lowered)) == bool(REFERENCE_GLUE.search(lowered))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(TEXT, max_size=6), min_size=1, max_size=4))
def test_shards_built_with_the_word_cache_hold_tokenize_counts(sources: list[list[str]]) -> None:
    index = SearchIndex()
    inverse: dict[int, str] = {}
    for number, texts in enumerate(sources):
        shard = index.build_shard(f"s{number}", 0, list(range(len(texts))), texts)
        inverse = {i: t for t, i in index.vocab.items()}
        held: list[Counter[str]] = [Counter() for _ in texts]
        for token_id, where in shard.where.items():
            start, end = shard.starts[where], shard.starts[where + 1]
            for doc, tf in zip(shard.docs[start:end].tolist(), shard.tfs[start:end].tolist(), strict=True):
                held[doc][inverse[token_id]] += int(tf)
        assert held == [Counter(tokenize(t)) for t in texts]
        assert shard.lengths.tolist() == [float(len(tokenize(t))) for t in texts]
        assert shard.total_length == sum(len(tokenize(t)) for t in texts)


def test_stop_words_only_document_has_length_zero() -> None:
    shard = SearchIndex().build_shard("s", 0, [0, 1], ["the and of", "calendar event"])
    assert shard.lengths.tolist() == [0.0, 2.0]
