"""Adapters that bring other agents' events into codex_nb: the real Codex app-server,
its recorded sessions (rollouts), and their replays. They depend on protocol/, events,
frontend and tools, never on runtime/."""
