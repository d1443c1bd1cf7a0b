"""Settings: layered agent.yml files, their schema, paths, and Claude Code imports."""
