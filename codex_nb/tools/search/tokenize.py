"""The tokenizer of the Rust ``bm25`` crate's ``DefaultTokenizer`` (English), which Codex's tool_search uses.

Steps, in the crate's order: transliterate to ASCII (``deunicode``; ``anyascii`` here),
lowercase, split on Unicode word boundaries (UAX #29 ``unicode_words``), drop English
stop words (the NLTK list the ``stop-words`` crate ships), Snowball English stemming
(PyStemmer runs the same Snowball algorithm as ``rust-stemmers``).

Word splitting follows UAX #29 for the characters tool metadata contains: ``_`` joins
(ExtendNumLet, so ``mcp__notes__save_note`` is one word), ``'`` and ``.`` join letters
on both sides (``can't``, ``e.g``), ``.`` and ``,`` join digits (``3.14``, ``1,000``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from functools import lru_cache

# NLTK English stop words, as the ``stop-words`` crate lists them (transliterated, as the crate does).
STOP_WORDS = frozenset(
    """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom
this that that'll these those am is are was were be been being have has had having do does did doing a an the
and but if or because as until while of at by for with about against between into through during before after
above below to from up down in out on off over under again further then once here there when where why how all
any both each few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn
hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn
shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
""".split()
)

# After transliteration the text is ASCII. ``\w+`` runs (letters, digits and ``_`` all join: UAX #29
# WB8-WB10, WB13a/b) are glued across a letter-MidLetter-letter (``'``, ``.``, ``:``: WB6/WB7) or a
# digit-MidNum-digit (``.``, ``,``, ``;``, ``'``: WB11/WB12) boundary.
_WORD = re.compile(r"\w+(?:(?:(?<=[a-z])['.:](?=[a-z])|(?<=[0-9])[.,;'](?=[0-9]))\w+)*")
# Without a glue character between two word characters, _WORD and a split on non-word characters agree (and the
# split is faster). Starting the pattern at the glue character lets the regex engine skip ahead to
# candidates (5x faster than ``\w['.:,;]\w``, which tries a match at every word character).
_GLUE = re.compile(r"['.:,;](?<=\w.)(?=\w)")
# Without glue, ``\w+`` over lowercased ASCII is "runs of [a-z0-9_]": mapping every other ASCII
# character to a space and splitting is the same split at C speed (the regex was most of an index build).
_NON_WORD_TO_SPACE = str.maketrans(
    {chr(i): " " for i in range(128) if chr(i) not in string.ascii_lowercase + string.digits + "_"}
)
_STEM_CACHE: dict[str, str] = {}
_STEM_CACHE_LIMIT = 200_000


@lru_cache(maxsize=1)
def _stem_word() -> Callable[[str], str]:
    import Stemmer  # PyStemmer: imported lazily, only when a search index is built

    stem: Callable[[str], str] = Stemmer.Stemmer("english").stemWord  # PyStemmer ships no types
    return stem


@lru_cache(maxsize=1)
def _transliterate() -> Callable[[str], str]:
    from anyascii import anyascii

    return anyascii


def words(text: str) -> list[str]:
    """The words of ``text`` before stop words and stemming: transliterated, lowercased, UAX #29 split."""
    if not text:
        return []
    if not text.isascii():
        text = _transliterate()(text)
    text = text.lower()
    if _GLUE.search(text):
        return _WORD.findall(text)
    return text.translate(_NON_WORD_TO_SPACE).split()


def stem(word: str) -> str:
    """A lowercased word's token: its Snowball stem, or ``""`` for a stop word (cached)."""
    cached = _STEM_CACHE.get(word)
    if cached is None:
        if len(_STEM_CACHE) > _STEM_CACHE_LIMIT:
            _STEM_CACHE.clear()
        cached = _STEM_CACHE[word] = "" if word in STOP_WORDS else _stem_word()(word)
    return cached


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` exactly as Codex's BM25 embeds them (duplicates kept: they count)."""
    found = words(text)
    cache = _STEM_CACHE
    try:  # the common case: every word seen before (comprehensions, no per-word branches)
        stems = [cache[w] for w in found]
    except KeyError:
        stems = [stem(w) for w in found]
    return [s for s in stems if s]
