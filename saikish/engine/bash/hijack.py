"""Variables that change which code a command runs (docs/SPEC.md §4.2, §4.7).

The list is catalogue data, by effect: saikish/engine/commands/catalogue/variables.txt,
read by saikish/engine/commands/variables.py. This name stays for the shell walker.
"""

from __future__ import annotations

from saikish.engine.commands.variables import is_hijack_var

__all__ = ["is_hijack_var"]
