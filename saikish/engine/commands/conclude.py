"""The end of a command's walk: what its operands are, and the Parse that sums it up.

The grammar (grammar.py) read the options; here the operands get their roles (the entry's,
or an option's: `jobs -x`), KEY=VALUE operands their files (`key-operand`), values that
name programs or remote code their findings (`if-value`), and the entry's settings that
need every word seen first: `if-operands`, `prints-env`, `runs-project` (catalogue
README.md, docs/SPEC.md §4.7).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from saikish.engine.commands.catalogue import TERMINAL_ROLES, Entry, Role
from saikish.engine.commands.effects import Walk, risk_name
from saikish.engine.commands.parsed import (
    RUN_TIME_TILDE,
    Finding,
    Inner,
    Parse,
    Word,
    assign_roles,
    word_flags,
)
from saikish.types import ReasonKind, Risk


def conclude(walk: Walk, visited: Sequence[Entry], sub_end: int) -> Parse:
    """The Parse of a walked command (`visited`: its entry and the subcommands entered)."""
    entry = walk.entry
    if walk.version and not walk.operand_seen and not walk.other_option:
        walk.lists = True  # ruby -v alone: the version, nothing else (gcc -v -lc links)
    _operand_roles(walk)
    if entry.has("evaluates") and walk.operands:  # eval ARGS: the joined words run
        words = [w for _, w in walk.operands]
        walk.inner.append(Inner(script=Word(" ".join(w.value for w in words),
                                            any(not w.literal for w in words))))
    _if_operands(walk)
    _values(walk, visited)
    if walk.entry.prints_env == "always" and sub_end:
        # gh auth token, aws configure get: a rule for the whole tool (`Bash(gh *)`) does
        # not cover printing its credentials; one naming the subcommand may.
        walk.findings.append(Finding(Risk.UNKNOWN, f"{walk.name} prints credentials",
                                     sub_end - 1, kind=ReasonKind.SECRET))
    project = next((e.project for e in visited if e.project), None)
    if project:  # cargo, pylint, make: the repository decides what runs (never verified)
        walk.findings.append(Finding(Risk.BUILD_TEST, project))
    # Where it runs decides whether that is a finding: the walker knows (walker.simple).
    repository = next((e.repository for e in visited if e.repository), None)
    base = Risk.READ_ONLY if walk.lists else entry.risk
    if base is Risk.ESCALATION and walk.as_user:
        base = Risk.UNKNOWN
    risk = Risk.highest([base] + [f.risk for f in walk.findings])
    stdin_code = (entry.stdin_code and not walk.has_code and not walk.lists) or \
        walk.code_from_stdin
    return Parse(
        walk.path, True, risk, tuple(walk.findings), tuple(walk.options),
        tuple(w.value for _, w in walk.operands), tuple(walk.reads), tuple(walk.writes),
        tuple(walk.inner), tuple(walk.variables), stdin_code, entry.has("shell"), walk.end,
        sub_end, walk.chdir, tuple(i for i, _ in walk.operands),
        tuple(w.value for w in walk.words), entry.has("fetches"),
        tuple(dict.fromkeys(c for e in visited for c in e.checks)), project,
        _env_printed(walk), repository)


def _operand_roles(walk: Walk) -> None:
    """Give every operand its role; more than the pattern takes is a finding."""
    pattern = walk.roles or walk.entry.operands
    if walk.pattern_given and pattern and pattern[0].name == "text":
        pattern = pattern[1:]  # grep -e PATTERN FILE...: every operand is a file
    roles = assign_roles(pattern, len(walk.operands))
    if roles is not None and not walk.lists:
        _glob_counts(walk, pattern, roles)
    if roles is None and walk.lists:
        roles = ["text"] * len(walk.operands)
    if roles is None:
        # More operands than the entry takes: a rule must name the first extra one
        # (gh repo clone REPO -- --upload-pack=...); too few is only a caveat.
        plain = [r for r in pattern if r.name not in TERMINAL_ROLES]
        most = None if any(r.quantity in ("*", "+") for r in plain) else len(plain)
        extra = walk.operands[most][0] if most is not None and \
            len(walk.operands) > most else None
        walk.findings.append(Finding(
            Risk.UNKNOWN, f"{walk.name} is given operands it does not take", extra))
        roles = ["path"] * len(walk.operands)
    if walk.lists:
        roles = ["path" if r == "write" else r for r in roles]
    keys = dict(walk.entry.key_operands)
    for (_, w), role in zip(walk.operands, roles, strict=True):
        key, eq, value = w.value.partition("=")
        if eq and key in keys:  # dd's if=FILE of=FILE
            _role(walk, _key_value(w, value), keys[key])
        else:
            _role(walk, w, role)


def _glob_counts(walk: Walk, pattern: tuple[Role, ...], roles: list[str]) -> None:
    """A glob is as many operands as it matches files, an unquoted `$x` as many as its
    value splits into. Where a second one would only be a file read (`grep *.c`, `grep $x`:
    the second word is searched), the word is also a read; where it would change what the
    operands are (`uniq *.txt` writes its second file, `cp a *.d` copies into the last),
    that is a finding, as for a word built at run time."""
    for k, (index, w) in enumerate(walk.operands):
        if not (w.globbing or w.splits) or w.value.startswith(("<(", ">(")):
            continue  # one word (<(cmd) is one name, whatever the command in it holds)
        more = assign_roles(pattern, len(roles) + 1)
        expected = roles[:k + 1] + roles[k:]  # the glob's role, twice
        changed = {m for m, e in zip(more, expected, strict=True) if m != e} if more else {""}
        if changed <= {"path"}:
            if changed:
                (walk.writes if walk.writes_operands else walk.reads).append(w)
            continue
        walk.findings.append(Finding(
            Risk.UNKNOWN, f"'{w.value}' may be several words, and what {walk.name} does "
                          f"with each depends on how many", index, kind=ReasonKind.DYNAMIC))
        return


def _key_value(w: Word, value: str) -> Word:
    if value.startswith("~") and not any(c in value for c in "$`") and \
            not RUN_TIME_TILDE.match(value):
        # if=~/x: bash expands the ~ after '=', a home path like any other
        return Word(value, globbing=w.globbing)
    return Word(value, *word_flags(w))


def _role(walk: Walk, w: Word, role: str) -> None:
    if role == "path":
        (walk.writes if walk.writes_operands else walk.reads).append(w)
    elif role == "write":
        walk.writes.append(w)
    elif role == "var":
        walk.variable(w.value if w.literal else "$dynamic")
    elif role == "assign":
        name = w.value.split("=", 1)[0] if "=" in w.value else w.value
        walk.variable(name if w.literal or "=" in w.value else "$dynamic")


def _if_operands(walk: Walk) -> None:
    rule = walk.entry.if_operands
    if rule is None or walk.lists:
        return
    count, risk, why, except_glob = rule
    counted = [i for i, w in walk.operands if except_glob is None or not w.literal or
               not fnmatch.fnmatchcase(w.value, except_glob)]
    if len(counted) < count and not any(w.globbing for _, w in walk.operands):
        return  # a glob may be any number of operands
    if risk is Risk.ESCALATION and walk.as_user:  # systemd-run --user CMD
        risk = Risk.UNKNOWN
        why = f"{walk.name} runs what it is given as the person, but outside this " \
              f"session, where saikish cannot see it"
    walk.findings.append(Finding(risk, why or f"{walk.name} with operands is "
                                               f"{risk_name(risk)}",
                                 counted[0] if counted else None))


def _values(walk: Walk, visited: Sequence[Entry]) -> None:
    """`if-value`: an operand or option value that names a program or remote code."""
    rules = [r for e in visited for r in e.value_rules]
    if not rules:
        return
    values = walk.operands + walk.values
    for rule in rules:
        for index, w in values:
            text = w.value.lower()
            # A value built at run time may be any of them: fail closed.
            if not w.literal or any(fnmatch.fnmatchcase(text, g) for g in rule.globs):
                shown = w.value if w.literal else "a value built at run time"
                walk.prints_all |= rule.prints_env
                walk.findings.append(Finding(
                    rule.risk, f"{rule.why} ({shown})", index, hard=rule.runs or not w.literal,
                    kind=rule.kind if w.literal else rule.kind or ReasonKind.DYNAMIC))
                break


def _env_printed(walk: Walk) -> tuple[str, ...]:
    """The variables the command prints: names, or '*' for all (`prints-env MODE`)."""
    mode = walk.entry.prints_env
    # A name built at run time may be any variable: every one, as far as anyone knows.
    names = tuple(w.value.split("=", 1)[0] if w.literal else "*" for _, w in walk.operands)
    # Stopped early (a word built at run time): not known to print, and already asked.
    runs = any(not i.script and not i.module for i in walk.inner) or walk.has_code or \
        walk.end < len(walk.words)
    if walk.prints_all:  # npm run env
        return ("*",)
    if walk.prints_env:  # declare -p NAME: that one; declare -p: all
        return names or ("*",)
    if mode == "always" or (mode == "bare" and not walk.operands) or \
            (mode == "unless-runs" and not runs):
        return ("*",)
    if mode == "named":
        return names or ("*",)
    return ()
