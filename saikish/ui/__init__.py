"""The terminal UI: previews, the approval prompt, the approver, the REPL."""
