"""`saikish acp`: the Agent Client Protocol server and its JSON-RPC wire."""
