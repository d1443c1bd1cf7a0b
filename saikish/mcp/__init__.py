"""MCP servers (docs/SPEC.md §7.1): their tools behind the same approval engine.

`config` reads `mcpServers:`; `client` runs the official SDK on its own thread;
`tools` turns listed tools into saikish Tools (names, risk from annotations,
results); `pins` remembers approved definitions so a changed one is asked again.
Nothing here imports the SDK at module level: only `client` does, on its thread.
"""
