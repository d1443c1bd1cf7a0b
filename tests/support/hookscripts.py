"""Hook scripts written the way Claude Code's hooks documentation shows (for the hook tests)."""

from __future__ import annotations

import stat
from pathlib import Path

# Blocks rm -rf (bash + jq, exit 2 with the reason on stderr), as in Claude Code's docs.
BLOCK_RM = r"""#!/bin/bash
command=$(jq -r '.tool_input.command // empty')
if echo "$command" | grep -Eq 'rm[[:space:]]+-[a-zA-Z]*r[a-zA-Z]*f|rm[[:space:]]+-rf'; then
  echo "Blocked: rm -rf is not allowed by the project's hook" >&2
  exit 2
fi
exit 0
"""

# Rewrites a command (python, JSON output with updatedInput), Claude Code style.
REWRITE = r"""#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
command = data["tool_input"].get("command", "")
if command.startswith("npm "):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
           "permissionDecisionReason": "npm is run as pnpm here",
           "updatedInput": {"command": "p" + command}}}
    print(json.dumps(out))
elif command.startswith("pnpm "):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
           "permissionDecisionReason": "pnpm is fine"}}
    print(json.dumps(out))
"""

# Adds context on UserPromptSubmit (plain stdout on exit 0 is context, as in Claude Code).
CONTEXT = r"""#!/bin/bash
prompt=$(jq -r '.prompt')
if [[ "$prompt" == *secret* ]]; then
  echo '{"decision": "block", "reason": "prompts about secrets are not sent"}'
  exit 0
fi
echo "Current sprint: ship the hooks"
"""

# Asks the model to continue once: stop_hook_active tells it it already did.
STOP_ONCE = r"""#!/bin/bash
active=$(jq -r '.stop_hook_active')
if [ "$active" = "true" ]; then exit 0; fi
echo '{"decision": "block", "reason": "Run the tests before you stop."}'
"""

# Hangs, with a child of its own; writes its pid first so the test can see it die.
HANG = r"""#!/bin/bash
sleep 300 &
echo $! > "$CLAUDE_PROJECT_DIR/hang.pid"
echo started > "$CLAUDE_PROJECT_DIR/hang.started"
wait
"""

BAD_JSON = """#!/bin/sh
echo '{"hookSpecificOutput": {"permissionDecision": "allow"'
"""

# Blocks whatever it is matched to (exit 2), naming the tool: the matcher decides.
BLOCK_ALL = r"""#!/bin/bash
tool=$(jq -r '.tool_name')
echo "$tool is blocked by the matcher's hook" >&2
exit 2
"""

# Appends each JSON object it gets on stdin to hook-input.jsonl in the project directory.
RECORD = r"""#!/bin/bash
jq -c . >> "$CLAUDE_PROJECT_DIR/hook-input.jsonl"
"""


def install(directory: Path, name: str, text: str) -> str:
    """Write an executable hook script; returns its absolute path."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)
