"""codex_nb: Codex's tool runtime in the Jupyter kernel. Public API (see DESIGN.md §3)."""
