"""Which rule covers one command, file write or file read of a call (SPEC §4.4, §4.7, §4.8)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from saikish.engine import boundary, tiers
from saikish.engine.bash.shell import (
    CATALOGUE,
    SimpleCommand,
    Target,
)
from saikish.engine.boundary import read_concern
from saikish.engine.commands.grammar import Parse, Word, parse
from saikish.engine.commands.risk import (
    Classification,
    implied_options,
    relative_write_risk,
    write_risk,
)
from saikish.engine.context import READ_TOOL, WRITE_TOOL, Context
from saikish.engine.toolfacts import ToolFacts
from saikish.rules import (
    _GLOBBY,
    Rule,
    in_git_dir,
    word_match,
    workspace_relative,
)
from saikish.types import UNJUDGED, CommandCheck, ReasonKind, Risk, ToolCall


def lifts(rule: Rule, tool: str, concern: str | None) -> bool:
    """Only a rule naming the path may carry a read across the boundary (a bare
    `read_file` rule was written for the workspace, not for ~/.ssh)."""
    if concern is None:
        return True
    key = boundary.READ_TOOLS.get(tool, "path")
    globs = [glob for name, glob in rule.when if name == key]
    return bool(globs) and all(boundary.covers(glob, concern) for glob in globs)


def write_lifts(rule: Rule, key: str, path: str, ctx: Context) -> bool:
    """A write rule that does not name the path (a bare `write_file`) covers the workspace
    only, never git metadata or saikish's config; one naming saikish's config must spell
    it out (`agent.yml`), as one for `.git` must (docs/SPEC.md §4.1, item 4 of §4.10)."""
    globs = [glob for name, glob in rule.when if name == key]
    bare = tiers.write_contained(path, ctx.workspace, ctx.containment.protected) and \
        not os.path.isabs(workspace_relative(path, ctx.workspace))
    if not globs or (rule.tools is not None and not bare):
        return bare  # a Claude Code alias (`Edit(**)`) never reaches further than a bare rule
    relative = workspace_relative(path, ctx.workspace)
    own = relative.split(os.sep, 1)[0]
    return own not in tiers.OWN_CONFIG or all(own in glob for glob in globs)


# -- ask rules (§4.8): shared by plain tools and bash ------------------------------


def tool_ask_rule(call: ToolCall, ctx: Context, tool: ToolFacts | None = None) -> Rule | None:
    """The first ask rule that covers a (non-bash) call, if any."""
    return next((r for r in ctx.rules.ask if tool_covers(r, call, tool, ctx, deny=True)),
                None)


def tool_covers(rule: Rule, call: ToolCall, tool: ToolFacts | None, ctx: Context,
                 deny: bool = False) -> bool:
    """True when `rule` covers the call under the tool's wire name or any other name it
    answers to (an MCP tool's full name, when its wire name had to be cut)."""
    names = (call.name, *(tool.aliases if tool else ()))
    return any(rule.matches_tool(name, call.arguments, ctx.workspace, deny) for name in names)


def bash_ask_rule(argv: Sequence[str], ctx: Context) -> Rule | None:
    """The first ask rule that covers one simple command of a bash call, if any."""
    return next((r for r in ctx.rules.ask if r.matches_argv(argv)), None)


def plain_check(command: SimpleCommand, found: Classification,
                allowed_by: str | None = None, need: str | None = UNJUDGED) -> CommandCheck:
    """The check of one command as classified, allowed by `allowed_by` if given."""
    return CommandCheck(command.argv, found.risk, allowed_by, found.caveat, need=need,
                        kind=found.kind)


def deny_rule(command: SimpleCommand, ctx: Context) -> Rule | None:
    """The deny rule that matches a command or a file it writes, if any."""
    for rule in ctx.rules.deny:
        if matches_meaning(rule, command):
            return rule
        for target in command.writes:
            if target.known and rule.matches_tool(WRITE_TOOL, {"path": target.path},
                                                  ctx.workspace):
                return rule
    return None


def matches_meaning(rule: Rule, command: SimpleCommand) -> bool:
    """A deny or ask rule matches the meaning: by basename, global options skipped, any
    order and spelling of its options (docs/SPEC.md §4.7)."""
    if not rule.is_bash or not command.argv:
        return False
    # '/usr/bin/git' is 'git' to a deny rule: a path must not dodge a deny.
    forms = {command.argv, (command.basename,) + command.argv[1:]}
    if any(rule.matches_argv(argv) for argv in forms):
        return True
    wanted = rule_meaning(rule)
    have = command.parse
    if wanted is None or have is None or not have.known:
        return False
    return _meaning_covers(wanted, have, rule.prefix)


def _meaning_covers(wanted: Parse, have: Parse, prefix: bool) -> bool:
    if wanted.path != have.path:
        return False
    options = {name for name, _ in have.options} | implied_options(have)
    for name, value in wanted.options:
        if name not in options:
            return False
        if value is not None and not any(
                n == name and v is not None and word_match(v, value) for n, v in have.options):
            return False
    operands = have.operands
    if len(operands) < len(wanted.operands) or (
            not prefix and len(operands) != len(wanted.operands)):
        return False
    return all(word_match(o, p) for o, p in zip(operands, wanted.operands, strict=False))


def rule_meaning(rule: Rule) -> Parse | None:
    """What a Bash rule's words mean to the command's grammar, or None if they do not parse."""
    if not rule.words:
        return None
    words = [Word(w) for w in rule.words]
    words[0] = Word(os.path.basename(rule.words[0]))
    meaning = parse(words, CATALOGUE)
    if not meaning.known or meaning.findings and any(
            "not known" in f.why or f.hard for f in meaning.findings):
        return None
    return meaning


def deny_unsure(found: Sequence[tuple[SimpleCommand, Classification]],
                 ctx: Context) -> tuple[str, ReasonKind] | None:
    """A deny rule that could match a command whose words are not all understood: why,
    and the kind of what is not understood."""
    for cmd, kind in found:
        if cmd.dynamic_name and any(r.is_bash for r in ctx.rules.deny):
            return (f"'{' '.join(cmd.argv)}' names its command only at run time, and any "
                    f"deny rule could match it", ReasonKind.DYNAMIC)
        if not (kind.hard or kind.named or cmd.parse is None or not cmd.parse.known):
            continue
        for rule in ctx.rules.deny:
            if rule.is_bash and rule.words and os.path.basename(rule.words[0]) in (
                    cmd.basename, os.path.basename(cmd.name)):
                unsure = kind.caveat or "unknown"
                return (f"'{' '.join(cmd.argv)}' is not fully understood ({unsure}) "
                        f"and deny rule {rule} could match it", kind.reason_kind)
    return None


def covering_rule(command: SimpleCommand, found: Classification, ctx: Context,
                  naming_xargs: bool = False) -> str | None:
    """The allow rule that covers this command, if any; a hard caveat means none can.

    With `naming_xargs`, only a rule that names xargs and the command covers it: the
    files it reads come from xargs's input.
    """
    if found.hard:
        return None
    for rule in ctx.rules.allow:
        if naming_xargs and (rule.words is None or rule.words[:1] != ("xargs",)):
            continue
        if rule_covers(rule, command, found):
            return rule.text
    return None


def autonomy_may(found: Classification) -> bool:
    """False for an unknown option or a word built at run time: no autonomy level runs
    such a command unasked (§4.7), only a rule or the person."""
    return not (found.hard or (bool(found.named) and found.risk.rank >= Risk.UNKNOWN.rank))


def remote_permit(command: SimpleCommand, found: Classification, carrier: SimpleCommand,
                  ctx: Context) -> CommandCheck | None:
    """A command run on another host (`ssh HOST CMD`), covered by a rule naming its
    carrier, the host and what runs there exactly."""
    if found.hard:
        return None
    rule = next((r for r in ctx.rules.allow if names_remote(r, carrier)), None)
    return plain_check(command, found, rule.text) if rule is not None else None


def names_remote(rule: Rule, carrier: SimpleCommand) -> bool:
    """True when `rule` spells out the carrier's whole command line (`ssh HOST CMD`) with
    no glob from the remote command on: the remote shell joins and re-reads those words,
    so a `*` there (`Bash(ssh HOST git *)`) could stand for `git pull ; rm -rf ~`."""
    own = carrier.offset + len(carrier.argv)
    if rule.words is None or rule.prefix or len(rule.words) <= own:
        return False
    return all(_spelled_out(w) for w in rule.words[own:]) and rule.matches_argv(carrier.outer)


def _spelled_out(pattern: str) -> bool:
    """A rule word that matches one word only: no glob but a bracketed `*` or `?`."""
    bare = re.sub(r"\[[*?]\]", "", pattern)
    start = bare.find("[")
    return "*" not in bare and "?" not in bare and (start < 0 or bare.find("]", start + 2) < 0)


def rule_covers(rule: Rule, command: SimpleCommand, found: Classification) -> bool:
    """True when an allow rule covers the command, through its runner too (`uv run pytest`)."""
    if command.open_ended and not rule.prefix and rule.words is not None:
        return False  # xargs / find -exec append words: only a prefix rule can match
    if rule.matches_argv(command.argv, found.named):
        return True
    if command.outer == command.argv or rule.words is None:
        return False
    # A rule naming the runner and what it runs ('Bash(uv run pytest *)') covers both.
    anchor = command.offset + (len(command.argv) if command.wrapper else 0)
    if anchor >= len(rule.words) or _GLOBBY.search(rule.words[anchor]):
        return False
    named = [command.offset + i for i in found.named]
    return rule.matches_argv(command.outer, named)


def own_write(target: Target, found: Classification, ctx: Context) -> bool:
    """A file the command writes inside the workspace as its own job (touch f, cp a b):
    the command's check already carries it, so it is not a question of its own."""
    return (not target.redirect and target.known and found.risk.rank >= Risk.WRITE.rank
            and write_risk(target.path, ctx.workspace) is Risk.WRITE)


def permit_write(target: Target, covering: str | None, ctx: Context) -> CommandCheck:
    """A file write: a write_file rule for its path, the command's rule, or autonomy."""
    shown = (">" if target.redirect else "writes", target.path)
    need = tiers.write_need(target, ctx.workspace, ctx.containment.protected)
    if not target.known:
        return CommandCheck(shown, Risk.DESTRUCTIVE, None,
                            f"writes {target.path}, a path only known at run time", True,
                            autonomy_may=False, need=need, kind=ReasonKind.DYNAMIC)
    relative = workspace_relative(target.path, ctx.workspace)
    risk = relative_write_risk(relative)
    for rule in ctx.rules.allow:
        if rule.matches_tool(WRITE_TOOL, {"path": target.path}, ctx.workspace) and \
                write_lifts(rule, "path", target.path, ctx):
            return CommandCheck(shown, risk, rule.text, is_redirect=True, need=need)
    if covering and not target.redirect and risk is Risk.WRITE:
        return CommandCheck(shown, risk, covering, is_redirect=True, need=need)
    why = "output redirection writes a file" if target.redirect else "writes a file"
    if in_git_dir(relative):
        why = f"{'output redirection ' if target.redirect else ''}writes {target.path}, in " \
              f".git, where git finds programs to run"
    return CommandCheck(shown, risk, None, why, True, need=need, kind=ReasonKind.WRITES)


# Device files whose reading reveals nothing: no question about them.


_HARMLESS_READS = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
                             "/dev/stdin", "/dev/fd/0", "-"})


def target_read_concern(target: Target, ctx: Context) -> str | None:
    """Why reading a target needs a person (outside, a secret, unknown at run time), or None."""
    if target.path in _HARMLESS_READS:
        return None
    if not target.known:
        return tiers.RUN_TIME_PATH
    if target.glob:
        directory, name = os.path.split(target.path)
        if boundary.glob_may_match_secret(name):
            return tiers.GLOB_SECRETS
        if _GLOBBY.search(directory):
            return tiers.RUN_TIME_DIRECTORY
        return read_concern(directory or ".", ctx.workspace)
    return read_concern(target.path, ctx.workspace)


def permit_read(target: Target, concern: str, ctx: Context) -> CommandCheck:
    """A read outside the workspace or of a secret (`concern`, from target_read_concern):
    only a read_file rule covers it."""
    shown = ("reads", target.path)
    need = tiers.read_need(target, concern, ctx.workspace)
    if target.known:
        for rule in ctx.rules.allow:
            if rule.matches_tool(READ_TOOL, {"path": target.path}, ctx.workspace) and \
                    lifts(rule, READ_TOOL, concern):
                return CommandCheck(shown, Risk.READ_ONLY, rule.text, is_redirect=True,
                                    need=need)
    said = f"is {concern}" if concern == boundary.OUTSIDE else concern
    return CommandCheck(shown, Risk.READ_ONLY, None, f"reads {target.path}, which {said}"
                        if target.known else f"reads {target.path}: {concern}", True,
                        autonomy_may=False, need=need, kind=read_kind(concern))


def read_kind(concern: str | None) -> ReasonKind:
    """The kind of reason a read concern is (a bash read or a file tool's)."""
    return _READ_KINDS.get(concern or "", ReasonKind.READS_OUTSIDE)


# Why a read needs a person -> the kind of that reason (READS_OUTSIDE for the others).
_READ_KINDS = {tiers.RUN_TIME_PATH: ReasonKind.DYNAMIC,
               tiers.RUN_TIME_DIRECTORY: ReasonKind.DYNAMIC, tiers.GLOB_SECRETS: ReasonKind.SECRET,
               boundary.SECRET: ReasonKind.SECRET}
