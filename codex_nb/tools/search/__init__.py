"""``tool_search``: BM25 over deferred tools, as Codex's ``codex-rs/core/src/tools/handlers/tool_search.rs``."""
