"""The rules an "always" answer proposes, never broader than what was approved (SPEC §4.4).

A proposal is a `Rule` value, built from the very words that ran and checked against
them; its text is only how the person sees it. The bounds (docs/SPEC.md §4.4):

- a command run on another host (`ssh HOST CMD`) is named exactly, with its carrier and
  host, never as the local command;
- a runner of fetched or project code (`npx PKG`, `go run PKG`, `python -m MOD`) is named
  with what it runs, never alone, and never with a wider version;
- a `*` never stands for a path outside the workspace: such a command is named exactly,
  and a read or write outside it is allowed for that one path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from saikish.engine import boundary
from saikish.engine.bash.shell import CATALOGUE, SimpleCommand, Target
from saikish.engine.commands.risk import Classification
from saikish.engine.context import READ_TOOL, WRITE_TOOL, Context
from saikish.engine.permits import names_remote, rule_covers
from saikish.errors import RuleError
from saikish.records import quick
from saikish.rules import (
    _GLOBBY,
    BASH,
    Rule,
    bash_rule_for,
    parse_rule,
    workspace_relative,
)
from saikish.types import CommandCheck, Risk, ToolCall

# Operand roles that make the command run what the operand names (catalogue README).
_RUNS_OPERAND = frozenset({"cmd", "script", "remote"})
# Commands whose operand names the program they build and run, though the catalogue reads
# it as text (`operands text*`): go's package, cargo's binary (docs/SPEC.md §4.4).
_BUILDS_AND_RUNS = frozenset({("go", "run"), ("cargo", "run")})


@quick
@dataclass(frozen=True)
class Found:
    """One simple command of the call, what it is, and the command carrying it to another
    host (`ssh HOST`), if it runs there."""

    command: SimpleCommand
    kind: Classification
    carrier: SimpleCommand | None = None


@quick
@dataclass(frozen=True)
class Checked:
    """One check of a call, the index of its command, and the file it is about, if any."""

    check: CommandCheck
    index: int
    target: Target | None = None


def carriers(commands: Sequence[SimpleCommand]) -> tuple[SimpleCommand | None, ...]:
    """For each command, the local one that runs it on another host (None when it runs
    here): a remote script's commands follow their carrier in the walk's order."""
    out: list[SimpleCommand | None] = []
    last_local: SimpleCommand | None = None
    for command in commands:
        out.append(last_local if command.remote else None)
        if not command.remote:
            last_local = command
    return tuple(out)


def tool_proposals(call: ToolCall, path: str | None, concern: str | None,
                   ctx: Context) -> tuple[Rule, ...]:
    """A tool with a path argument is allowed for that path only, never as a whole."""
    if path is not None and concern is not None:
        rule = path_rule(call.name, boundary.proposal_glob(path, ctx.workspace, concern))
    elif "path" in call.arguments:
        rule = path_rule(call.name, _as_matched(str(call.arguments["path"]), ctx.workspace))
    else:
        rule = parse_rule(call.name, "proposed")
    return (rule,) if rule is not None else ()


def proposals(blocking: Sequence[Checked], found: Sequence[Found],
              workspace: str) -> tuple[Rule, ...]:
    """The narrowest rules that would let this call through next time; none when one of
    the blocking checks cannot be covered by a rule within the bounds."""
    out: dict[str, Rule] = {}
    commands: dict[str, list[Found]] = {}  # the commands each Bash rule was proposed for
    for item in blocking:
        check = item.check
        if check.argv[0] == "writes" and check.risk is Risk.WRITE and len(blocking) > 1:
            continue  # inside the workspace: the rule for the command that writes covers it
        rule = _proposal(item, found, workspace)
        if rule is None:
            return ()
        out.setdefault(rule.text, rule)
        if item.target is None and found[item.index].carrier is None:
            commands.setdefault(rule.text, []).append(found[item.index])
    return _without_covered(out, commands)


def _without_covered(out: dict[str, Rule], commands: dict[str, list[Found]]) -> tuple[
        Rule, ...]:
    """Drops a Bash rule whose commands another proposed rule covers already (`npx
    cowsay@1.2 *` covers `npx cowsay@1.2 hi`): the box shows no rule it does not need."""
    kept = dict(out)
    for text, owners in commands.items():
        others = [r for t, r in kept.items() if t != text and r.is_bash]
        if any(all(rule_covers(r, f.command, f.kind) for f in owners) for r in others):
            del kept[text]
    return tuple(kept.values())


def _proposal(item: Checked, found: Sequence[Found], workspace: str) -> Rule | None:
    """The rule for one blocking check, re-checked the way the policy checks it."""
    owner = found[item.index]
    if owner.carrier is not None:  # on another host, its files too: no local rule
        if owner.kind.hard:
            return None  # a word built at run time there: no rule can cover it
        rule = _remote_rule(owner.carrier)
        return rule if rule is not None and names_remote(rule, owner.carrier) else None
    if item.target is not None:
        return _target_rule(item.target, item.check.argv[0] == "reads", workspace)
    target = _through_wrapper(found, item.index)
    carried = any(f.carrier is target.command for f in found)
    rule = _remote_rule(target.command) if carried else bash_proposal(target, workspace)
    return rule if rule is not None and rule_covers(rule, owner.command, owner.kind) else None


def _through_wrapper(found: Sequence[Found], index: int) -> Found:
    """A wrapper that fetches nothing (env, timeout, uv run, python -m) is proposed as the
    command it runs, its own words in front: never the wrapper with any command."""
    owner = found[index]
    command = owner.command
    parsed = command.parse
    if not command.wrapper or parsed is not None and parsed.fetches:
        return owner
    start = command.offset + len(command.argv)
    return next((f for f in found[index + 1:] if f.command.outer == command.outer
                 and f.command.offset == start), owner)


def _remote_rule(carrier: SimpleCommand) -> Rule | None:
    """`ssh HOST CMD` exactly as written: the host and what runs there, nothing wider."""
    return exact_bash_rule(carrier.outer, prefix=False)


def _target_rule(target: Target, read: bool, workspace: str) -> Rule | None:
    """A read outside the workspace or of a secret, or a write: that one path."""
    if not target.known or target.glob or _GLOBBY.search(target.path):
        return None  # known at run time only, or a glob that may match secrets
    if read:
        concern = boundary.read_concern(target.path, workspace) or boundary.OUTSIDE
        return path_rule(READ_TOOL, boundary.proposal_glob(target.path, workspace, concern))
    return path_rule(WRITE_TOOL, _as_matched(target.path, workspace))


def _as_matched(path: str, workspace: str) -> str:
    """The path as a rule is matched on it: relative to the workspace inside it (`B/../x`
    is `x`), absolute outside it."""
    return workspace_relative(path, workspace)


def bash_proposal(owner: Found, workspace: str) -> Rule | None:
    """The rule for one command, checked against the words that ran: it must match them,
    and a `*` must not stand for a path outside the workspace (else the exact words)."""
    command, found = owner.command, owner.kind
    if found.hard:
        return None  # a word built at run time: no rule can cover it
    words, prefix = _proposed_words(command, found)
    if prefix and _reaches_outside(command, command.outer[len(words):], workspace):
        words, prefix = _exact_words(command)
    rule = exact_bash_rule(words, prefix)
    return rule if rule is not None and rule_covers(rule, command, found) else None


def _proposed_words(command: SimpleCommand, found: Classification) -> tuple[
        tuple[str, ...], bool]:
    """Risky commands exactly; runners with what they run; others by name (and
    subcommand) plus any words (docs/SPEC.md §4.4)."""
    argv = command.argv
    lead = command.outer[:command.offset]
    parsed = command.parse
    if found.named or found.risk.level >= Risk.DESTRUCTIVE.level:
        return _exact_words(command)
    if command.wrapper:
        if parsed is not None and parsed.fetches:  # npx PKG: the package, at its version
            return command.outer[:command.offset + len(argv) + 1], True
        return command.outer, False  # env, timeout, python -m: what it runs, exactly
    if command.open_ended:  # xargs / find -exec append words: only a prefix rule can match
        return lead + argv, True
    runs = _runs_operand(command)
    if runs == "remote":  # ssh HOST: a command line run elsewhere, named exactly
        return _exact_words(command)
    if runs:
        indexes = parsed.operand_indexes if parsed is not None else ()
        if not indexes:
            return _exact_words(command)
        return lead + argv[:indexes[0] + 1], True
    keep = parsed.sub_end if parsed is not None and parsed.sub_end else 1
    return lead + argv[:keep], True


def _exact_words(command: SimpleCommand) -> tuple[tuple[str, ...], bool]:
    """The command's words as they ran (xargs and find -exec append more: a prefix)."""
    if command.wrapper:
        return command.outer, False
    return command.outer[:command.offset] + command.argv, command.open_ended


def _runs_operand(command: SimpleCommand) -> str:
    """What a runner's operand is ("remote" for ssh's command line, "code" for what it
    fetches, builds or runs), or "" for a command that runs no operand."""
    parsed = command.parse
    entry = CATALOGUE.get(*parsed.path) if parsed is not None else None
    if parsed is None or entry is None:
        return "code"  # not understood: fail closed, as a runner
    roles = {role.name for role in entry.operands}
    if "remote" in roles:
        return "remote"
    if parsed.fetches or parsed.inner or tuple(parsed.path) in _BUILDS_AND_RUNS or \
            roles & _RUNS_OPERAND:
        return "code"
    return ""


def _reaches_outside(command: SimpleCommand, rest: Sequence[str], workspace: str) -> bool:
    """True when the words a `*` would stand for name a path outside the workspace, or
    the command reads or writes one (after a `cd`, the grammar knows where)."""
    targets = [t for t in command.reads + command.writes if not t.redirect]
    return any(not t.known or _outside(t.path, workspace) for t in targets) or any(
        _outside(value, workspace) for word in rest for value in _path_spellings(word))


def _path_spellings(word: str) -> tuple[str, ...]:
    """The word, and what may be a path in it: an option's value (`--out=/x`, `-o/x`)."""
    if word.startswith("--") and "=" in word:
        return word, word.split("=", 1)[1]
    if word.startswith("-") and len(word) > 2:
        return word, word[2:]
    return (word,)


def _outside(value: str, workspace: str) -> bool:
    """True when `value` names a path outside the workspace (a URL names none)."""
    if not (value.startswith(("/", "~")) or "/" in value or value == ".."):
        return False
    if "://" in value:
        return False
    return os.path.isabs(workspace_relative(value, workspace))


# -- rules as values ------------------------------------------------------------

def literal(word: str) -> str | None:
    """`word` as a rule word that matches itself only (`*` as `[*]`), or None when no rule
    word can: a `[` with a `]` after it opens a class, and `[[]` is no portable escape."""
    start = word.find("[")
    if start >= 0 and word.find("]", start + 2) >= 0:
        return None
    if "*" not in word and "?" not in word:
        return word  # most words: nothing to bracket
    return re.sub(r"[*?]", lambda m: f"[{m.group(0)}]", word)


def exact_bash_rule(words: Sequence[str], prefix: bool, origin: str = "proposed") -> Rule | None:
    """The Bash rule naming `words` literally (and any further words when `prefix`), as a
    value; None when its text would not read back as the same rule (fail closed)."""
    spelled = [literal(w) for w in words]
    patterns = tuple(w for w in spelled if w is not None)
    if len(patterns) != len(spelled):
        return None
    rule = Rule(tool=BASH, words=patterns, prefix=prefix,
                text=bash_rule_for(patterns, prefix), origin=origin)
    return rule if patterns and _reads_back(rule) else None


def path_rule(tool: str, path: str, origin: str = "proposed") -> Rule | None:
    """The rule allowing `tool` on exactly `path`, as a value; None when no path glob can
    name it alone (a literal `*`) or its text would not read back the same."""
    if not path or _PATH_GLOB.search(path):
        return None
    rule = Rule(tool=tool, when=(("path", path),), text=f"{tool}(path={path})", origin=origin)
    return rule if _reads_back(rule) else None


def _reads_back(rule: Rule) -> bool:
    """True when the rule's text is parsed as this very rule: what is shown is what is kept."""
    try:
        again = parse_rule(rule.text, rule.origin)
    except RuleError:
        return False
    return (again.tool, again.words, again.prefix, again.colon_word, again.when) == (
        rule.tool, rule.words, rule.prefix, rule.colon_word, rule.when)


_PATH_GLOB = re.compile(r"[*?\[{]")
