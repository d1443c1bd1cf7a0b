"""Running one session: the agent loop, the executor, the session, approvals and events."""
