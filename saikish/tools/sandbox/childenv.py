"""The environment saikish's children get (docs/SPEC.md §4.8): everything but its own keys.

The bash tool, hooks and MCP servers run programs the model chose or a
project named; none of them may read the API keys saikish itself uses, or
`env` would hand them to the model.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

# The variables saikish reads its own credentials from.
OWN_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def child_environment(secrets: Iterable[str] = (),
                      environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`environ` (default os.environ) without saikish's keys, nor any variable holding `secrets`."""
    source = os.environ if environ is None else environ
    values = {s for s in secrets if s}
    values.update(source[k] for k in OWN_KEYS if source.get(k))
    # Dropped by value too: `llm.apiKey: $MY_KEY` makes MY_KEY one of ours.
    return {k: v for k, v in source.items() if k not in OWN_KEYS and v not in values}


def with_git_guards(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with git told to use a bare repository only when named (--git-dir, GIT_DIR):
    a cloned project can hold a bare repository as plain files, and its config (diff.external,
    core.fsmonitor) would run at a `git -C dir diff` the engine reads as harmless. The
    setting is added after any the person set through GIT_CONFIG_COUNT."""
    out = dict(env)
    count = out.get("GIT_CONFIG_COUNT", "0")
    n = int(count) if count.isdigit() else 0
    out[f"GIT_CONFIG_KEY_{n}"] = "safe.bareRepository"
    out[f"GIT_CONFIG_VALUE_{n}"] = "explicit"
    out["GIT_CONFIG_COUNT"] = str(n + 1)
    return out
