"""MCP servers (docs/SPEC.md §7.1): their tools behind the same approval engine.

- `config` reads agent.yml's `mcpServers:` (with lines, like the rest of the file);
- `host` is one session's servers: specs with a minimal environment, start after
  the prompt, their tools offered to the tool registry once listed, shutdown;
- `tools` turns a listed tool into a saikish Tool (wire name, risk from annotations);
- `pins` remembers approved definitions, so a changed one is asked again;
- `client` runs the servers on one background thread and asyncio loop, with
  `transport` (one connection) and `stdio` (our stdio transport: exact env, own
  process group), `results` (content to text) and `values` (the plain nouns).

Only `transport` and `stdio` import the official `mcp` SDK, and only on the
client's thread: saikish with no server configured never imports it.
"""
