"""docs/SPEC.md §4.1 as one pure function: decide(call, context) -> Assessment.

No printing, no clock, no terminal. The executor calls `decide` for every
call; when the verdict is ASK it hands the Assessment to an Approver.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from saikish.engine import boundary, tiers
from saikish.engine.bash.shell import (
    CATALOGUE,
    ESCALATORS,
    XARGS_INPUT,
    SimpleCommand,
    Target,
    analyse,
    mentions_escalation,
)
from saikish.engine.bash.written import assessment_as_written
from saikish.engine.boundary import read_concern
from saikish.engine.commands.environment import environment_concern
from saikish.engine.commands.grammar import Parse, Word, parse
from saikish.engine.commands.risk import (
    Classification,
    auto_approves,
    classify,
    implied_options,
    relative_write_risk,
    write_risk,
)
from saikish.engine.rules import (
    _GLOBBY,
    Rule,
    bash_rule_for,
    in_git_dir,
    parse_rule,
    word_match,
    workspace_relative,
)
from saikish.engine.tiers import Containment
from saikish.engine.toolfacts import ToolFacts, validate
from saikish.types import Assessment, Autonomy, CommandCheck, Mode, Risk, Source, ToolCall, Verdict

BASH = "bash"
WRITE_TOOL = "write_file"
READ_TOOL = "read_file"


@dataclass(frozen=True)
class RuleSet:
    """The rules in force, in the order docs/SPEC.md §4.1 and §4.5 consult them."""

    config_allow: tuple[Rule, ...] = ()
    config_deny: tuple[Rule, ...] = ()
    file_allow: tuple[Rule, ...] = ()
    file_deny: tuple[Rule, ...] = ()
    session_allow: tuple[Rule, ...] = ()
    # False when the allowlist file's deny (or ask) lists could not be read whole.
    deny_complete: bool = True
    config_ask: tuple[Rule, ...] = ()
    file_ask: tuple[Rule, ...] = ()
    # The allowlist file's section for this workspace (`projects:`).
    project_allow: tuple[Rule, ...] = ()
    project_deny: tuple[Rule, ...] = ()
    project_ask: tuple[Rule, ...] = ()

    @property
    def deny(self) -> tuple[Rule, ...]:
        """Deny rules: config, the allowlist file, this project; any of them beats allow."""
        return self.config_deny + self.file_deny + self.project_deny

    @property
    def allow(self) -> tuple[Rule, ...]:
        """Allow rules: config, allowlist file, this project, then session approvals."""
        return self.config_allow + self.file_allow + self.project_allow + self.session_allow

    @property
    def ask(self) -> tuple[Rule, ...]:
        """Ask rules (docs/SPEC.md §4.8): config, the allowlist file, this project."""
        return self.config_ask + self.file_ask + self.project_ask


@dataclass(frozen=True)
class Context:
    """Everything `decide` may look at."""

    tools: Mapping[str, ToolFacts]
    rules: RuleSet = field(default_factory=RuleSet)
    autonomy: Autonomy = Autonomy.CAUTIOUS
    mode: Mode = Mode.EVENT_BASED
    workspace: str = "."
    # What the sandbox and the checkpoints contain in this session (the contained tier).
    containment: Containment = field(default_factory=Containment)


def decide(call: ToolCall, ctx: Context) -> Assessment:
    """The pipeline of docs/SPEC.md §4.1, steps 1 to 6; the first step that decides, decides."""
    tool = ctx.tools.get(call.name)
    problem = _invalid(call, tool, ctx)
    if problem:
        return Assessment(Verdict.INVALID, Risk.UNKNOWN, Source.INVALID, problem)
    if call.name == BASH:
        return assessment_as_written(_decide_bash(str(call.arguments["command"]), ctx))
    assert tool is not None
    return _decide_tool(call, tool, tool.risk(call.arguments, ctx.workspace), ctx)


# -- step 1 ----------------------------------------------------------------------

def _invalid(call: ToolCall, tool: ToolFacts | None, ctx: Context) -> str | None:
    if tool is None:
        return f"unknown tool '{call.name}'; available tools: {', '.join(sorted(ctx.tools))}"
    if call.raw_arguments is not None:
        return f"arguments are not a valid JSON object: {call.raw_arguments[:200]!r}"
    problem = validate(tool.schema, call.arguments)
    if problem:
        return problem
    if call.name == BASH and not str(call.arguments["command"]).strip():
        return "argument 'command' is empty"
    return None


# -- plain tools -----------------------------------------------------------------

def _decide_tool(call: ToolCall, tool: ToolFacts, risk: Risk, ctx: Context) -> Assessment:
    for rule in ctx.rules.deny:
        if _tool_covers(rule, call, tool, ctx, deny=True):
            return _reject_by(rule, risk, f"denied by rule {rule}")
    changed = tool.definition_change() if tool.definition_change else None
    if changed is not None:
        return _changed_tool(call, risk, changed, ctx)
    path = boundary.read_path(call.name, dict(call.arguments))
    concern = boundary.read_concern(path, ctx.workspace) if path is not None else None
    proposed = _tool_proposals(call, path, concern, ctx)
    asked = tool_ask_rule(call, ctx, tool)
    if asked is not None:
        return forced_ask(asked, risk, ctx)
    written = call.arguments.get(tool.writes_argument) if tool.writes_argument else None
    for rule in ctx.rules.allow:
        if _tool_covers(rule, call, tool, ctx) and _lifts(rule, call.name, concern) and (
                not isinstance(written, str) or
                _write_lifts(rule, str(tool.writes_argument), written, ctx)):
            return Assessment(Verdict.ALLOW, risk, _rule_source(rule, ctx),
                              f"allowed by rule {rule}", rule.text)
    if concern is not None:
        # The read boundary (§4.8) is asked under every autonomy level.
        return _mode_or_ask(risk, f"{call.name} reads {path}, which is {_concern(concern)}",
                            ctx, proposed, opaque=False)
    if auto_approves(ctx.autonomy, risk) and not tool.requires_confirmation:
        return Assessment(Verdict.ALLOW, risk, Source.AUTONOMY,
                          f"{_name(risk)} is allowed under autonomy {ctx.autonomy.value}")
    reason = f"{call.name} is {_name(risk)}"
    if _tool_containable(call, tool, ctx):
        return _contain(risk, reason, ctx, proposed)
    return _mode_or_ask(risk, reason, ctx, proposed, opaque=False)


def _tool_containable(call: ToolCall, tool: ToolFacts, ctx: Context) -> bool:
    """A tool that changes one file in place, inside the workspace and not in git metadata
    or saikish's config: a checkpoint taken before it makes it undoable (§4.10)."""
    key = tool.writes_argument
    path = call.arguments.get(key) if key else None
    return (isinstance(path, str) and bool(path) and not tool.requires_confirmation
            and ctx.rules.deny_complete
            and tiers.write_contained(path, ctx.workspace, ctx.containment.protected)
            and not os.path.isabs(workspace_relative(path, ctx.workspace)))


def _changed_tool(call: ToolCall, risk: Risk, changed: str, ctx: Context) -> Assessment:
    """A tool whose definition changed since it was approved (§7.1 rug pulls): no rule,
    no autonomy level and no mode but --auto-deny answers; the person looks again."""
    reason = f"{call.name} changed since a call of it was approved: {changed}"
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set")
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, forced=True,
                      proposed_rules=(call.name,))


def _tool_proposals(call: ToolCall, path: str | None, concern: str | None,
                    ctx: Context) -> tuple[Rule, ...]:
    """A tool with a path argument is allowed for that path only, never as a whole."""
    if path is not None and concern is not None:
        return (_path_rule(call.name, boundary.proposal_glob(path, ctx.workspace, concern)),)
    if "path" in call.arguments:
        return (_path_rule(call.name, str(call.arguments["path"])),)
    return (parse_rule(call.name, "proposed"),)


def _lifts(rule: Rule, tool: str, concern: str | None) -> bool:
    """Only a rule naming the path may carry a read across the boundary (a bare
    `read_file` rule was written for the workspace, not for ~/.ssh)."""
    if concern is None:
        return True
    key = boundary.READ_TOOLS.get(tool, "path")
    globs = [glob for name, glob in rule.when if name == key]
    return bool(globs) and all(boundary.covers(glob, concern) for glob in globs)


def _write_lifts(rule: Rule, key: str, path: str, ctx: Context) -> bool:
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


def _concern(concern: str) -> str:
    return "outside the workspace" if concern == boundary.OUTSIDE else f"a file that {concern}"


# -- ask rules (§4.8): shared by plain tools and bash ------------------------------

def tool_ask_rule(call: ToolCall, ctx: Context, tool: ToolFacts | None = None) -> Rule | None:
    """The first ask rule that covers a (non-bash) call, if any."""
    return next((r for r in ctx.rules.ask if _tool_covers(r, call, tool, ctx, deny=True)),
                None)


def _tool_covers(rule: Rule, call: ToolCall, tool: ToolFacts | None, ctx: Context,
                 deny: bool = False) -> bool:
    """True when `rule` covers the call under the tool's wire name or any other name it
    answers to (an MCP tool's full name, when its wire name had to be cut)."""
    names = (call.name, *(tool.aliases if tool else ()))
    return any(rule.matches_tool(name, call.arguments, ctx.workspace, deny) for name in names)


def bash_ask_rule(argv: Sequence[str], ctx: Context) -> Rule | None:
    """The first ask rule that covers one simple command of a bash call, if any."""
    return next((r for r in ctx.rules.ask if r.matches_argv(argv)), None)


def forced_ask(rule: Rule, risk: Risk, ctx: Context,
               checks: tuple[CommandCheck, ...] = ()) -> Assessment:
    """An ask rule matched: the person is asked whatever allow rules or autonomy say.

    --auto-deny still rejects (nobody is there to ask); --auto-approve does not
    answer for the person: an ask rule is the person's wish to see this call.
    No "always" is offered: an allow rule could never lift an ask rule.
    """
    reason = f"asked by rule {rule}"
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set",
                          rule.text, checks)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, rule.text, checks,
                      forced=True)


# -- bash ------------------------------------------------------------------------

def _decide_bash(command: str, ctx: Context) -> Assessment:
    analysis = analyse(command)
    found = [(c, classify(c)) for c in analysis.commands]
    escalation = [c for c, k in found if k.risk is Risk.ESCALATION]
    # Code saikish cannot read (an unknown command's words, awk's system(), python -c,
    # a name built at run time) may still run sudo: no mode may approve that blind.
    murky = analysis.opaque or any(k.hard or k.risk is Risk.UNKNOWN for _, k in found)
    hidden = mentions_escalation(command) if not escalation and murky else None
    if hidden:
        return Assessment(Verdict.REJECT, Risk.ESCALATION, Source.ESCALATION,
                          f"{hidden} is never run by saikish, also not from code it cannot "
                          f"read: run it yourself if it is needed",
                          commands=tuple(_check(c, k) for c, k in found))
    if escalation or analysis.raw_escalation:
        word = escalation[0].basename if escalation else "an escalation command"
        # An option that runs as another user (setpriv --reuid) says so in its caveat.
        why = next((k.caveat for c, k in found if k.risk is Risk.ESCALATION and k.caveat and
                    c.basename not in ESCALATORS), None)
        # No mode, rule or flag overrides this (docs/SPEC.md §4.1 step 2).
        return Assessment(Verdict.REJECT, Risk.ESCALATION, Source.ESCALATION,
                          f"{word} is never run by saikish so: {why}; run it yourself if it is "
                          f"needed" if why else
                          f"{word} is never run by saikish: run it yourself if it is needed",
                          commands=tuple(_check(c, k) for c, k in found))
    for cmd, _ in found:
        denied = _deny_rule(cmd, ctx)
        if denied:
            return _reject_by(denied, Risk.highest(k.risk for _, k in found),
                              f"'{' '.join(cmd.argv)}' is denied by rule {denied}")
    for cmd, _ in found:
        asked = next((r for r in ctx.rules.ask if _matches_meaning(r, cmd)), None)
        if asked is not None:  # an ask rule: the person sees it, whatever else says yes
            return forced_ask(asked, Risk.highest(k.risk for _, k in found), ctx,
                              tuple(_check(c, k) for c, k in found))
    checks: list[CommandCheck] = []
    for cmd, kind in found:
        xargs_input = any(t.path == XARGS_INPUT.value for t in cmd.reads)
        check = _permit(cmd, kind, ctx, naming_xargs=xargs_input)
        printing = environment_concern(cmd) if not cmd.wrapper else None
        if printing is not None and check.allowed_by is None:
            # env / printenv hand every variable to the model: a rule naming it may.
            check = replace(check, caveat=printing, autonomy_may=False)
        if xargs_input and check.allowed_by is None:
            # xargs names the files: only a rule naming xargs and the command vouches for them.
            check = replace(check, autonomy_may=False,
                            caveat=check.caveat or "reads the files xargs is given")
        need = tiers.command_need(cmd, kind, ctx.workspace, ctx.containment.protected)
        checks.append(replace(check, need=need))
        checks += [_permit_write(t, check.allowed_by, ctx) for t in cmd.writes
                   if not _own_write(t, kind, ctx)]
        checks += [_permit_read(t, ctx) for t in cmd.reads
                   if t.path != XARGS_INPUT.value and _read_concern(t, ctx)]
    checks = [replace(c, auto=True) if c.autonomy_may and not c.permitted and
              auto_approves(ctx.autonomy, c.risk) else c for c in checks]
    risk = Risk.highest([c.risk for c in checks] + ([Risk.UNKNOWN] if analysis.opaque else []))
    unsure = _deny_unsure(found, ctx)
    if not analysis.opaque and not unsure and all(c.permitted for c in checks):
        return _allowed(checks, risk, ctx)
    if analysis.opaque:
        reason = f"it cannot be fully analysed: {analysis.opaque[0]}"
        proposed: tuple[Rule, ...] = ()
    elif unsure:
        reason = unsure
        proposed = ()
    else:
        blocking = [c for c in checks if not c.permitted]
        reason = "; ".join(_why(c) for c in blocking[:3])
        proposed = _proposals(blocking, found, ctx.workspace)
    needs = [c.need for c in checks if not c.permitted and c.need is not None]
    # Code not fully read may be what a deny rule names: only a person can tell.
    blind = not ctx.rules.deny_complete or bool(analysis.opaque) and bool(ctx.rules.deny) \
        or analysis.parser_fault  # a parser that was stopped read nothing: a person looks
    if not unsure and not needs and not blind:
        return _contain(risk, reason, ctx, proposed, tuple(checks), sandboxed=True)
    if needs and not unsure and ctx.containment.sandbox:
        reason = f"{reason}; needs a person: {needs[0]}"
    return _mode_or_ask(risk, reason, ctx, proposed, bool(analysis.opaque or unsure),
                        tuple(checks))


def _check(command: SimpleCommand, found: Classification,
           allowed_by: str | None = None) -> CommandCheck:
    return CommandCheck(command.argv, found.risk, allowed_by, found.caveat)


def _deny_rule(command: SimpleCommand, ctx: Context) -> Rule | None:
    for rule in ctx.rules.deny:
        if _matches_meaning(rule, command):
            return rule
        for target in command.writes:
            if target.known and rule.matches_tool(WRITE_TOOL, {"path": target.path},
                                                  ctx.workspace):
                return rule
    return None


def _matches_meaning(rule: Rule, command: SimpleCommand) -> bool:
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


def _deny_unsure(found: Sequence[tuple[SimpleCommand, Classification]],
                 ctx: Context) -> str | None:
    """A deny rule that could match a command whose words are not all understood."""
    for cmd, kind in found:
        if cmd.dynamic_name and any(r.is_bash for r in ctx.rules.deny):
            return (f"'{' '.join(cmd.argv)}' names its command only at run time, and any "
                    f"deny rule could match it")
        if not (kind.hard or kind.named or cmd.parse is None or not cmd.parse.known):
            continue
        for rule in ctx.rules.deny:
            if rule.is_bash and rule.words and os.path.basename(rule.words[0]) in (
                    cmd.basename, os.path.basename(cmd.name)):
                unsure = kind.caveat or "unknown"
                return (f"'{' '.join(cmd.argv)}' is not fully understood ({unsure}) "
                        f"and deny rule {rule} could match it")
    return None


def _permit(command: SimpleCommand, found: Classification, ctx: Context,
            naming_xargs: bool = False) -> CommandCheck:
    """Which rule, if any, covers this command; a hard caveat means none can.

    With `naming_xargs`, only a rule that names xargs and the command covers it: the
    files it reads come from xargs's input.
    """
    if not found.hard:
        for rule in ctx.rules.allow:
            if naming_xargs and not rule.text.startswith("Bash(xargs "):
                continue
            if _covers(rule, command, found):
                return _check(command, found, rule.text)
    # An unknown option or a word built at run time: no autonomy level runs it (§4.7).
    strict = found.hard or (bool(found.named) and found.risk.rank >= Risk.UNKNOWN.rank)
    return CommandCheck(command.argv, found.risk, None, found.caveat, autonomy_may=not strict)


def _covers(rule: Rule, command: SimpleCommand, found: Classification) -> bool:
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


def _own_write(target: Target, found: Classification, ctx: Context) -> bool:
    """A file the command writes inside the workspace as its own job (touch f, cp a b):
    the command's check already carries it, so it is not a question of its own."""
    return (not target.redirect and target.known and found.risk.rank >= Risk.WRITE.rank
            and write_risk(target.path, ctx.workspace) is Risk.WRITE)


def _permit_write(target: Target, covering: str | None, ctx: Context) -> CommandCheck:
    """A file write: a write_file rule for its path, the command's rule, or autonomy."""
    shown = (">" if target.redirect else "writes", target.path)
    need = tiers.write_need(target, ctx.workspace, ctx.containment.protected)
    if not target.known:
        return CommandCheck(shown, Risk.DESTRUCTIVE, None,
                            f"writes {target.path}, a path only known at run time", True,
                            autonomy_may=False, need=need)
    relative = workspace_relative(target.path, ctx.workspace)
    risk = relative_write_risk(relative)
    for rule in ctx.rules.allow:
        if rule.matches_tool(WRITE_TOOL, {"path": target.path}, ctx.workspace) and \
                _write_lifts(rule, "path", target.path, ctx):
            return CommandCheck(shown, risk, rule.text, is_redirect=True)
    if covering and not target.redirect and risk is Risk.WRITE:
        return CommandCheck(shown, risk, covering, is_redirect=True)
    why = "output redirection writes a file" if target.redirect else "writes a file"
    if in_git_dir(relative):
        why = f"{'output redirection ' if target.redirect else ''}writes {target.path}, in " \
              f".git, where git finds programs to run"
    return CommandCheck(shown, risk, None, why, True, need=need)


# Device files whose reading reveals nothing: no question about them.
_HARMLESS_READS = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
                             "/dev/stdin", "/dev/fd/0", "-"})


def _read_concern(target: Target, ctx: Context) -> str | None:
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


def _permit_read(target: Target, ctx: Context) -> CommandCheck:
    """A read outside the workspace or of a secret: only a read_file rule covers it."""
    concern = _read_concern(target, ctx)
    shown = ("reads", target.path)
    if target.known and concern is not None:
        for rule in ctx.rules.allow:
            if rule.matches_tool(READ_TOOL, {"path": target.path}, ctx.workspace) and \
                    _lifts(rule, READ_TOOL, concern):
                return CommandCheck(shown, Risk.READ_ONLY, rule.text, is_redirect=True)
    said = f"is {concern}" if concern == boundary.OUTSIDE else concern
    need = None if concern is None else tiers.read_need(target, concern, ctx.workspace)
    return CommandCheck(shown, Risk.READ_ONLY, None, f"reads {target.path}, which {said}"
                        if target.known else f"reads {target.path}: {concern}", True,
                        autonomy_may=False, need=need)


def _allowed(checks: Sequence[CommandCheck], risk: Risk, ctx: Context) -> Assessment:
    used = list(dict.fromkeys(c.allowed_by for c in checks if c.allowed_by))
    if not used:
        return Assessment(Verdict.ALLOW, risk, Source.AUTONOMY,
                          f"every command is {_name(risk)} or safer, allowed under autonomy "
                          f"{ctx.autonomy.value}", commands=tuple(checks))
    session = {r.text for r in ctx.rules.session_allow}
    source = Source.SESSION if all(u in session for u in used) else Source.RULE
    return Assessment(Verdict.ALLOW, risk, source, f"allowed by {', '.join(used)}",
                      ", ".join(used), tuple(checks))


def _why(check: CommandCheck) -> str:
    if check.is_redirect:
        return check.caveat or f"writes {check.argv[1]}"
    text = " ".join(check.argv)
    return f"'{text}' is {_name(check.risk)}" + (f" ({check.caveat})" if check.caveat else "")


def _proposals(blocking: Sequence[CommandCheck],
               found: Sequence[tuple[SimpleCommand, Classification]],
               workspace: str) -> tuple[Rule, ...]:
    """The narrowest rules that would let this call through next time, if rules can."""
    by_argv = {cmd.argv: (cmd, kind) for cmd, kind in found}
    out: dict[str, Rule] = {}
    for check in blocking:
        if check.argv[0] == "writes" and check.risk is Risk.WRITE and len(blocking) > 1:
            continue  # inside the workspace: the rule for the command that writes covers it
        if check.is_redirect:
            rule = _target_rule(check, workspace)
            if rule is None:
                return ()
        else:
            cmd, kind = by_argv[check.argv]
            if kind.hard:
                return ()  # a word built at run time: no rule can cover it
            rule = parse_rule(_bash_proposal(cmd, kind), "proposed")
        out.setdefault(rule.text, rule)
    return tuple(out.values())


def _target_rule(check: CommandCheck, workspace: str) -> Rule | None:
    kind, path = check.argv
    if check.caveat and "only known at run time" in check.caveat:
        return None
    if kind == "reads":
        if _GLOBBY.search(path):
            return None  # a glob that may match secrets: no rule names each file
        concern = boundary.SECRET if boundary.SECRET in (check.caveat or "") \
            else boundary.OUTSIDE
        return _path_rule(READ_TOOL, boundary.proposal_glob(path, workspace, concern))
    return _path_rule(WRITE_TOOL, path)


def _bash_proposal(command: SimpleCommand, found: Classification) -> str:
    """Risky commands exactly; others by name (and subcommand) plus any words.

    Through a runner (`uv run`, `npx`) the rule names the runner and what it runs, never
    the runner alone (docs/SPEC.md §4.7).
    """
    argv = command.argv
    lead = command.outer[:command.offset] if command.offset else ()
    if found.named or found.risk.level >= Risk.DESTRUCTIVE.level:
        return bash_rule_for(lead + argv, prefix=command.open_ended)
    if command.wrapper:
        return bash_rule_for(command.outer[:command.offset + len(argv) + 1], prefix=True)
    if command.open_ended:  # xargs / find -exec append words: only a prefix rule can match
        return bash_rule_for(lead + argv, prefix=True)
    parsed = command.parse
    keep = parsed.sub_end if parsed is not None and parsed.sub_end else 1
    if argv[1:2] == ("-m",):
        keep = 3
    return bash_rule_for(lead + argv[:keep], prefix=True)


def _path_rule(tool: str, path: str) -> Rule:
    return parse_rule({"tool": tool, "when": {"path": path}}, "proposed")


# -- the contained tier (§4.1) ------------------------------------------------------

def _contain(risk: Risk, reason: str, ctx: Context, proposed: Iterable[Rule],
             checks: tuple[CommandCheck, ...] = (), sandboxed: bool = False) -> Assessment:
    """A call nobody verified and nothing in which needs a person: it runs contained
    (bash in the sandbox, every writing call after a checkpoint), or, where this session
    cannot contain it, it is asked as before and the reason says what is missing."""
    held = ctx.containment
    # The contained tier needs a working sandbox (the person turning it off themselves and
    # running --auto-approve is their choice), and what can write needs a checkpoint that
    # can undo it (§4.10): a file edit always can write.
    undoable = held.checkpoints or (sandboxed and risk is Risk.READ_ONLY)
    possible = held.unsandboxed or held.sandbox and undoable
    if ctx.autonomy is Autonomy.MANUAL or ctx.mode is Mode.AUTO_DENY or not possible:
        if possible or ctx.autonomy is Autonomy.MANUAL or ctx.mode is Mode.AUTO_DENY:
            missing = ""
        elif not (held.sandbox or held.unsandboxed):
            missing = held.missing or "no sandbox"
        else:
            missing = held.no_undo or "no undo"
        said = f"{reason} (it would run contained, but {missing})" if missing else reason
        return _mode_or_ask(risk, said, ctx, proposed, False, checks)
    where = "in the sandbox" if sandboxed and held.sandbox else \
        "unsandboxed, as --sandbox off and --auto-approve ask" if sandboxed else \
        "after a checkpoint (saikish undo)"
    return Assessment(Verdict.ALLOW, risk, Source.SANDBOX,
                      f"not verified ({reason}): runs contained {where}", commands=checks,
                      proposed_rules=tuple(r.text for r in proposed), contained=True,
                      unverified=reason)


# -- shared tail: deny, mode, ask --------------------------------------------------

def _reject_by(rule: Rule, risk: Risk, reason: str) -> Assessment:
    return Assessment(Verdict.REJECT, risk, Source.DENY_RULE, reason, rule.text)


def _mode_or_ask(risk: Risk, reason: str, ctx: Context, proposed: Iterable[Rule],
                 opaque: bool, checks: tuple[CommandCheck, ...] = ()) -> Assessment:
    """Steps 6 and 7: the mode answers for the person, or the person is asked."""
    proposed = tuple(proposed)
    if ctx.mode is Mode.AUTO_APPROVE and (opaque or not ctx.rules.deny_complete) and (
            ctx.rules.deny or not ctx.rules.deny_complete):
        # Deny rules could not be checked: approving blind could run a denied command.
        return Assessment(Verdict.REJECT, risk, Source.MODE,
                          f"{reason}; it cannot be checked against the deny rules",
                          commands=checks)
    # --auto-approve answers for the contained tier only (_contain): what needs a person
    # is asked where one can answer, and rejected with this reason where none can.
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set",
                          commands=checks)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, commands=checks,
                      proposed_rules=tuple(r.text for r in proposed))


def _rule_source(rule: Rule, ctx: Context) -> Source:
    return Source.SESSION if rule in ctx.rules.session_allow else Source.RULE


def _name(risk: Risk) -> str:
    return risk.name.replace("_", "-").lower()
