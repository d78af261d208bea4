"""``tool_search``: BM25 over deferred tools, as Codex's ``codex-rs/core/src/tools/handlers/tool_search.rs``.

Modules:

* ``catalog``: the deferred-tool index, in step with registry generations.
* ``documents``: the text indexed for each tool.
* ``index``: BM25, sharded by registry source.
* ``tokenize``: the Rust ``bm25`` crate's tokenizer.

Layer: part of ``tools/``.
"""
