"""Claude Code-compatible command hooks: their config, wire format, and runner."""
