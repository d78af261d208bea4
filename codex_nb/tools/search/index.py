"""A BM25 index over deferred tools, sharded by registry source so one source's refresh is cheap.

Scores are Codex's (the Rust ``bm25`` crate 2.3): for each query token ``t`` (repeats
count), ``idf(t) * tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl))`` with k1=1.2, b=0.75,
``idf = ln(1 + (N - n + 0.5)/(n + 0.5))`` and ``avgdl`` fitted to the whole corpus
(256 when it is empty). Only documents sharing a query token are returned.

Why not one ``bm25s`` index: bm25s bakes the corpus-wide idf and avgdl into every
entry of its eager score matrix, so replacing one MCP server's 100 tools among 10,000
would rescore all 10,000. Here each source is a ``Shard`` of postings (token ->
documents, term counts, as flat numpy arrays) built once. Documents live in slots
(stable integer ids), so replacing a shard touches only its own slots; the corpus-wide
statistics (N, total length, document frequency per token id) are numpy arrays updated
by subtracting the old shard and adding the new one. A token's postings across shards
are merged on first use and cached until a shard holding that token changes; the BM25
formula runs at query time on the query tokens' postings, vectorised with numpy. ``bm25s`` (``method="lucene"``, the same idf and
the same ranking; its tf part omits the constant ``k1 + 1``) is the reference the tests
and the benchmark compare rankings and speed against.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from itertools import chain

from .tokenize import stem, tokenize, words

K1 = 1.2
B = 0.75
FALLBACK_AVGDL = 256.0
WORD_CACHE_LIMIT = 200_000  # distinct words the shard builder remembers; past it the cache starts again


@dataclass(frozen=True, slots=True)
class Shard:
    """One source's postings: for token id ``t`` at ``where[t] = i``, its documents are
    ``docs[starts[i]:starts[i+1]]`` (local numbers) with counts ``tfs[...]``. Immutable."""

    source: str
    version: Any
    keys: tuple[Hashable, ...]
    lengths: Any  # float64, one per document
    token_ids: Any  # int64, the shard's distinct token ids, ascending
    starts: Any  # int64, len(token_ids) + 1 offsets into docs/tfs
    docs: Any  # int64
    tfs: Any  # float64
    where: dict[int, int]
    total_length: int

    @classmethod
    def build(
        cls,
        source: str,
        version: Any,
        keys: Sequence[Hashable],
        texts: Sequence[str],
        vocab: dict[str, int],
        word_ids: dict[str, int] | None = None,
    ) -> Shard:
        """Tokenise ``texts``; ``vocab`` (token -> id) is the index's and grows as needed.

        ``word_ids`` (word -> token id, -1 for a stop word) caches stemming and the vocab lookup
        together, so each word of the shard costs one dict lookup; the index keeps it across shards.
        """
        import numpy as np

        if word_ids is None:
            word_ids = {}
        per_doc = [words(text) for text in texts]
        flat = list(chain.from_iterable(per_doc))
        try:
            ids = [word_ids[w] for w in flat]
        except KeyError:
            for word in [w for w in dict.fromkeys(flat) if w not in word_ids]:  # first-seen order: stable ids
                token = stem(word)
                word_ids[word] = vocab.setdefault(token, len(vocab)) if token else -1
            ids = [word_ids[w] for w in flat]
        all_ids = np.array(ids, dtype=np.int64)
        all_docs = np.repeat(np.arange(len(per_doc), dtype=np.int64), [len(found) for found in per_doc])
        kept = all_ids >= 0
        token_ids = all_ids[kept]
        doc_ids = all_docs[kept]
        lengths = np.bincount(doc_ids, minlength=len(per_doc))
        n_docs = max(len(lengths), 1)
        pairs, counts = np.unique(token_ids * n_docs + doc_ids, return_counts=True)
        pair_tokens = pairs // n_docs
        boundaries = np.flatnonzero(np.diff(pair_tokens)) + 1
        first = np.concatenate((np.zeros(1, dtype=np.int64), boundaries)) if len(pairs) else boundaries
        distinct = pair_tokens[first]
        starts = np.concatenate((first, np.array([len(pairs)], dtype=np.int64)))
        return cls(
            source,
            version,
            tuple(keys),
            lengths.astype(np.float64),
            distinct,
            starts,
            pairs % n_docs,
            counts.astype(np.float64),
            dict(zip(distinct.tolist(), range(len(distinct)), strict=True)),
            int(lengths.sum()),
        )

    def __len__(self) -> int:
        return len(self.keys)

    def doc_freqs(self) -> Any:
        return self.starts[1:] - self.starts[:-1]


class SearchIndex:
    """Shards by source, document slots, and the corpus-wide statistics BM25 needs."""

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self.vocab: dict[str, int] = {}
        self._word_ids: dict[str, int] = {}  # word -> token id (-1: stop word), shared by the shards
        self._shards: dict[str, Shard] = {}
        self._slots: dict[str, Any] = {}  # source -> its documents' slots
        self._keys: list[Hashable | None] = []
        self._lengths = np.zeros(0, dtype=np.float64)
        self._free: list[int] = []
        self._df = np.zeros(0, dtype=np.int64)
        self._merged: dict[int, tuple[Any, Any]] = {}
        self._n = 0
        self._total_length = 0

    def __len__(self) -> int:
        return self._n

    @property
    def sources(self) -> dict[str, Any]:
        """``source -> version`` of every shard."""
        return {s: shard.version for s, shard in self._shards.items()}

    def build_shard(self, source: str, version: Any, keys: Sequence[Hashable], texts: Sequence[str]) -> Shard:
        if len(self._word_ids) > WORD_CACHE_LIMIT:
            self._word_ids.clear()
        return Shard.build(source, version, keys, texts, self.vocab, self._word_ids)

    def replace(self, shard: Shard) -> None:
        """Put ``shard`` in place of the source's old one (if any)."""
        np = self._np
        self.remove(shard.source)
        if not shard.keys:
            return
        slots = self._allocate(len(shard))
        self._slots[shard.source] = slots
        self._shards[shard.source] = shard
        for slot, key in zip(slots.tolist(), shard.keys, strict=True):
            self._keys[slot] = key
        self._lengths[slots] = shard.lengths
        self._n += len(shard)
        self._total_length += shard.total_length
        if len(self._df) < len(self.vocab):
            self._df = np.concatenate((self._df, np.zeros(len(self.vocab) - len(self._df), dtype=np.int64)))
        self._df[shard.token_ids] += shard.doc_freqs()
        self._forget(shard)

    def remove(self, source: str) -> None:
        old = self._shards.pop(source, None)
        if old is None:
            return
        slots = self._slots.pop(source)
        for slot in slots.tolist():
            self._keys[slot] = None
        self._lengths[slots] = 0.0
        self._free.extend(reversed(slots.tolist()))
        self._n -= len(old)
        self._total_length -= old.total_length
        self._df[old.token_ids] -= old.doc_freqs()
        self._forget(old)

    def _forget(self, shard: Shard) -> None:
        """Drop cached merged postings of the tokens ``shard`` holds (the cache is small: query tokens)."""
        for token in [t for t in self._merged if t in shard.where]:
            del self._merged[token]

    def _allocate(self, count: int) -> Any:
        np = self._np
        reused = [self._free.pop() for _ in range(min(count, len(self._free)))]
        fresh = count - len(reused)
        if fresh:
            start = len(self._keys)
            self._keys.extend([None] * fresh)
            self._lengths = np.concatenate((self._lengths, np.zeros(fresh, dtype=np.float64)))
            reused.extend(range(start, start + fresh))
        return np.array(reused, dtype=np.int64)

    def _postings(self, token: int) -> tuple[Any, Any]:
        cached = self._merged.get(token)
        if cached is not None:
            return cached
        np = self._np
        slot_parts, tf_parts = [], []
        for source, shard in self._shards.items():
            i = shard.where.get(token)
            if i is None:
                continue
            a, b = shard.starts[i], shard.starts[i + 1]
            slot_parts.append(self._slots[source][shard.docs[a:b]])
            tf_parts.append(shard.tfs[a:b])
        merged = (np.concatenate(slot_parts), np.concatenate(tf_parts))
        if len(self._merged) > 4096:
            self._merged.clear()
        self._merged[token] = merged
        return merged

    def search(self, query: str, limit: int) -> list[Hashable]:
        """Keys of the best ``limit`` matches, best first; ties in slot order."""
        np = self._np
        tokens = Counter(tokenize(query))
        if not tokens or not self._n or limit <= 0:
            return []
        n = self._n
        avgdl = self._total_length / n if self._total_length > 0 else FALLBACK_AVGDL
        slot_parts: list[Any] = []
        weight_parts: list[Any] = []
        for token, repeats in tokens.items():
            token_id = self.vocab.get(token)
            if token_id is None or token_id >= len(self._df):
                continue
            df = int(self._df[token_id])
            if df <= 0:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            slots, tf = self._postings(token_id)
            norm = K1 * (1.0 - B + B * self._lengths[slots] / avgdl)
            slot_parts.append(slots)
            weight_parts.append((idf * repeats * (K1 + 1.0)) * tf / (tf + norm))
        if not slot_parts:
            return []
        slots = slot_parts[0] if len(slot_parts) == 1 else np.concatenate(slot_parts)
        weights = weight_parts[0] if len(weight_parts) == 1 else np.concatenate(weight_parts)
        scores = np.bincount(slots, weights=weights, minlength=len(self._keys))
        seen = np.zeros(len(self._keys), dtype=bool)
        seen[slots] = True
        matched = np.flatnonzero(seen)  # documents sharing a query token, in slot order
        if len(matched) > limit:  # keep everything scoring at least the limit-th best, then sort just those
            threshold = np.partition(scores[matched], len(matched) - limit)[len(matched) - limit]
            matched = matched[scores[matched] >= threshold]
        ranked = matched[np.argsort(-scores[matched], kind="stable")]
        return [self._keys[i] for i in ranked[:limit].tolist()]
