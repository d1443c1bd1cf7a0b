"""What the shell analysis finds: simple commands, their files, and the whole analysis."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from saikish.engine.commands.grammar import Parse
from saikish.records import quick


@quick
@dataclass(frozen=True)
class Target:
    """A file a command writes or reads."""

    path: str
    # False when the path is only known at run time, or is relative after an unknown `cd`.
    known: bool = True
    # An output redirection: a Bash rule for the command never covers it (§4.2).
    redirect: bool = False
    # The path is a glob (`*.py`): its place is known, the names it matches are not.
    glob: bool = False
    # An appending redirection (`>> f`): what is written comes after what is there.
    append: bool = False


@quick
@dataclass(frozen=True)
class SimpleCommand:
    """One command bash will run, as the words it will see."""

    argv: tuple[str, ...]
    # Files written: output redirections, and operands or option values the grammar
    # says are written.
    writes: tuple[Target, ...] = ()
    # A hijacking variable (PATH, LD_PRELOAD...) set for this command or the rest of the
    # script, however it was set.
    hijack: str | None = None
    # The command name is not a literal word ($CMD, a glob, an ANSI-C string).
    dynamic_name: bool = False
    # Run by xargs or find -exec: more arguments are appended when it runs.
    open_ended: bool = False
    # The wrappers it was found behind, outermost first (env, timeout, bash -c...).
    via: tuple[str, ...] = ()
    # Where its stdin comes from: "pipe", "heredoc", "herestring", "file" or None.
    stdin: str | None = None
    # A wrapper (env, timeout, xargs, uv run...) whose inner command is listed too.
    wrapper: bool = False
    # What the catalogue grammar found; None for bare assignments and redirections.
    parse: Parse | None = None
    # Files read (path operands), resolved against the `cd`s before it.
    reads: tuple[Target, ...] = ()
    # A function of this name is defined in the same command: it runs that instead.
    shadowed: bool = False
    # The whole simple command this one sits in (a wrapper's full argv) and where this
    # command's words start in it: a rule that names the runner and the command matches.
    outer: tuple[str, ...] = ()
    offset: int = 0
    # Inside an ssh command line: runs on another host.
    remote: bool = False
    # What a here-document or here-string gives it on stdin, when that text is static.
    feed: str | None = None

    @property
    def name(self) -> str:
        """The command name as written ('' for a bare assignment)."""
        return self.argv[0] if self.argv else ""

    @functools.cached_property
    def basename(self) -> str:
        """The command name without its directory (asked for many times per command)."""
        return os.path.basename(self.name)

    @property
    def piped_into(self) -> bool:
        """True when its stdin is another command's output."""
        return self.stdin == "pipe"


@quick
@dataclass(frozen=True)
class ShellAnalysis:
    """Every simple command found, and why the analysis may be incomplete."""

    commands: tuple[SimpleCommand, ...]
    # Reasons the string holds something not understood; non-empty means ask.
    opaque: tuple[str, ...] = ()
    # An escalation word seen in text that could not be parsed.
    raw_escalation: bool = False
    # Here-documents written to a file (`cat > f <<'EOF'`): the target and the content.
    heredoc_writes: tuple[tuple[Target, str], ...] = ()
    # The parser itself was stopped (it looped or grew past its bounds): nothing of the
    # text was read, so it needs a person, not only the sandbox (docs/SPEC.md §4.1).
    parser_fault: bool = False
    # Constructs bashlex does not read, which the preparse module rewrote first ("[[ ]]",
    # "a quoted here-document"...): the analysis rests on a rewrite, so the call may run
    # contained at most, never verified (docs/SPEC.md §4.1, §4.2).
    rewritten: tuple[str, ...] = ()
    # The names bash may evaluate as arithmetic in the text (arithmetic.arithmetic_names).
    arithmetic: frozenset[str] = frozenset()
