"""A real Responses-API model provider, configured the way Codex configures one."""
