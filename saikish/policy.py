"""SPEC 4.1 as one pure function: decide(call, context) -> Assessment.

No printing, no clock, no terminal. The executor calls `decide` for every
call; when the verdict is ASK it hands the Assessment to an Approver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from saikish.risk import Classification, auto_approves, classify, write_risk
from saikish.rules import Rule, bash_rule_for, parse_rule
from saikish.shell import SimpleCommand, analyse
from saikish.tools.base import Tool, validate
from saikish.types import Assessment, Autonomy, CommandCheck, Mode, Risk, Source, ToolCall, Verdict

BASH = "bash"
WRITE_TOOL = "write_file"
# Commands that pick a subcommand: "always" proposes `Bash(npm install *)`, not `Bash(npm *)`.
SUBCOMMANDS = frozenset({"git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "pip", "pip3",
                         "docker", "podman", "kubectl", "gh", "uv", "poetry", "brew", "apt",
                         "apt-get", "systemctl", "make", "just"})


@dataclass(frozen=True)
class RuleSet:
    """The rules in force, in the order SPEC 4.1 consults them."""

    config_allow: tuple[Rule, ...] = ()
    config_deny: tuple[Rule, ...] = ()
    file_allow: tuple[Rule, ...] = ()
    file_deny: tuple[Rule, ...] = ()
    session_allow: tuple[Rule, ...] = ()
    # False when the allowlist file's deny list could not be read whole.
    deny_complete: bool = True

    @property
    def deny(self) -> tuple[Rule, ...]:
        """Deny rules: config first, then the allowlist file."""
        return self.config_deny + self.file_deny

    @property
    def allow(self) -> tuple[Rule, ...]:
        """Allow rules: config, allowlist file, then session approvals."""
        return self.config_allow + self.file_allow + self.session_allow


@dataclass(frozen=True)
class Context:
    """Everything `decide` may look at."""

    tools: Mapping[str, Tool]
    rules: RuleSet = field(default_factory=RuleSet)
    autonomy: Autonomy = Autonomy.CAUTIOUS
    mode: Mode = Mode.EVENT_BASED
    workspace: str = "."


def decide(call: ToolCall, ctx: Context) -> Assessment:
    """The pipeline of SPEC 4.1, steps 1 to 6; the first step that decides, decides."""
    tool = ctx.tools.get(call.name)
    problem = _invalid(call, tool, ctx)
    if problem:
        return Assessment(Verdict.INVALID, Risk.UNKNOWN, Source.INVALID, problem)
    if call.name == BASH:
        return _decide_bash(str(call.arguments["command"]), ctx)
    assert tool is not None
    return _decide_tool(call, tool.risk(call.arguments, ctx.workspace), ctx,
                        tool.requires_confirmation)


# -- step 1 ----------------------------------------------------------------------

def _invalid(call: ToolCall, tool: Tool | None, ctx: Context) -> str | None:
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

def _decide_tool(call: ToolCall, risk: Risk, ctx: Context,
                 requires_confirmation: bool = False) -> Assessment:
    for rule in ctx.rules.deny:
        if rule.matches_tool(call.name, call.arguments, ctx.workspace):
            return _reject_by(rule, risk, f"denied by rule {rule}")
    for rule in ctx.rules.allow:
        if rule.matches_tool(call.name, call.arguments, ctx.workspace):
            return Assessment(Verdict.ALLOW, risk, _rule_source(rule, ctx),
                              f"allowed by rule {rule}", rule.text)
    if auto_approves(ctx.autonomy, risk) and not requires_confirmation:
        return Assessment(Verdict.ALLOW, risk, Source.AUTONOMY,
                          f"{_name(risk)} is allowed under autonomy {ctx.autonomy.value}")
    # A tool with a path argument is allowed for that path only, never as a whole.
    proposed = (_path_rule(call.name, str(call.arguments["path"])),) \
        if "path" in call.arguments else (parse_rule(call.name, "proposed"),)
    return _mode_or_ask(risk, f"{call.name} is {_name(risk)}", ctx, proposed,
                        opaque=False)


# -- bash ------------------------------------------------------------------------

def _decide_bash(command: str, ctx: Context) -> Assessment:
    analysis = analyse(command)
    found = [(c, classify(c)) for c in analysis.commands]
    escalation = [c for c, k in found if k.risk is Risk.ESCALATION]
    if escalation or analysis.raw_escalation:
        word = escalation[0].basename if escalation else "an escalation command"
        # No mode, rule or flag overrides this (SPEC 4.1 step 2).
        return Assessment(Verdict.REJECT, Risk.ESCALATION, Source.ESCALATION,
                          f"{word} is never run by saikish: run it yourself if it is needed",
                          commands=tuple(_check(c, k) for c, k in found))
    for cmd, _ in found:
        denied = _deny_rule(cmd, ctx)
        if denied:
            return _reject_by(denied, Risk.highest(k.risk for _, k in found),
                              f"'{' '.join(cmd.argv)}' is denied by rule {denied}")
    checks = [_permit(c, k, ctx) for c, k in found]
    checks += [_permit_write(t, ctx) for c, _ in found for t in c.writes]
    checks = [replace(c, auto=auto_approves(ctx.autonomy, c.risk)) for c in checks]
    risk = Risk.highest([c.risk for c in checks] + ([Risk.UNKNOWN] if analysis.opaque else []))
    if not analysis.opaque and all(c.permitted for c in checks):
        return _allowed(checks, risk, ctx)
    if analysis.opaque:
        reason = f"cannot be fully analysed ({analysis.opaque[0]})"
        proposed: tuple[Rule, ...] = ()
    else:
        blocking = [c for c in checks if not c.permitted]
        reason = "; ".join(_why(c) for c in blocking[:3])
        proposed = _proposals(blocking, found)
    return _mode_or_ask(risk, reason, ctx, proposed, bool(analysis.opaque), tuple(checks))


def _check(command: SimpleCommand, found: Classification,
           allowed_by: str | None = None) -> CommandCheck:
    return CommandCheck(command.argv, found.risk, allowed_by, found.caveat)


def _deny_rule(command: SimpleCommand, ctx: Context) -> Rule | None:
    # Deny rules also match '/usr/bin/git' as 'git': a path must not dodge a deny.
    forms = {command.argv, (command.basename,) + command.argv[1:]}
    for rule in ctx.rules.deny:
        if any(rule.matches_argv(argv) for argv in forms if argv):
            return rule
        for target in command.writes:
            if rule.matches_tool(WRITE_TOOL, {"path": target}, ctx.workspace):
                return rule
    return None


def _permit(command: SimpleCommand, found: Classification, ctx: Context) -> CommandCheck:
    """Which rule, if any, covers this command; a caveat means none can."""
    if found.caveat is None:
        for rule in ctx.rules.allow:
            if rule.matches_argv(command.argv) and (rule.prefix or not command.open_ended
                                                    or rule.words is None):
                return _check(command, found, rule.text)
    return _check(command, found)


def _permit_write(target: str, ctx: Context) -> CommandCheck:
    """An output redirection: a write_file rule for its path, or autonomy, permits it."""
    risk = write_risk(target, ctx.workspace)
    for rule in ctx.rules.allow:
        if rule.matches_tool(WRITE_TOOL, {"path": target}, ctx.workspace):
            return CommandCheck((">", target), risk, rule.text, is_redirect=True)
    return CommandCheck((">", target), risk, None, "output redirection writes a file", True)


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
        return f"writes {check.argv[1]} by redirection"
    text = " ".join(check.argv)
    return f"'{text}' is {_name(check.risk)}" + (f" ({check.caveat})" if check.caveat else "")


def _proposals(blocking: Sequence[CommandCheck],
               found: Sequence[tuple[SimpleCommand, Classification]]) -> tuple[Rule, ...]:
    """The narrowest rules that would let this call through next time, if rules can."""
    if any(c.caveat and not c.is_redirect for c in blocking):
        return ()  # a dangerous argument: no rule can cover it, so "always" is not offered
    by_argv = {cmd.argv: cmd for cmd, _ in found}
    out: dict[str, Rule] = {}
    for check in blocking:
        if check.is_redirect:
            rule = _path_rule(WRITE_TOOL, check.argv[1])
        else:
            rule = parse_rule(_bash_proposal(by_argv[check.argv], check.risk), "proposed")
        out.setdefault(rule.text, rule)
    return tuple(out.values())


def _bash_proposal(command: SimpleCommand, risk: Risk) -> str:
    """Risky commands exactly as written; others by name (and subcommand) plus any words."""
    argv = command.argv
    if command.open_ended:  # xargs / find -exec append words: only a prefix rule can match
        return bash_rule_for(argv, prefix=True)
    if risk.level >= Risk.DESTRUCTIVE.level:
        return bash_rule_for(argv, prefix=False)
    if argv[1:2] == ("-m",):
        return bash_rule_for(argv[:3], prefix=True)  # python -m pytest *
    if command.basename in SUBCOMMANDS:
        sub = next((w for w in argv[1:] if not w.startswith("-")), None)
        return bash_rule_for(argv[:1] + ((sub,) if sub else ()), prefix=True)
    return bash_rule_for(argv[:1], prefix=True)


def _path_rule(tool: str, path: str) -> Rule:
    return parse_rule({"tool": tool, "when": {"path": path}}, "proposed")


# -- shared tail: deny, mode, ask --------------------------------------------------

def _reject_by(rule: Rule, risk: Risk, reason: str) -> Assessment:
    return Assessment(Verdict.REJECT, risk, Source.DENY_RULE, reason, rule.text)


def _mode_or_ask(risk: Risk, reason: str, ctx: Context, proposed: Iterable[Rule],
                 opaque: bool, checks: tuple[CommandCheck, ...] = ()) -> Assessment:
    """Steps 6 and 7: the mode answers for the person, or the person is asked."""
    proposed = tuple(proposed)
    if ctx.mode is Mode.AUTO_APPROVE:
        if (opaque or not ctx.rules.deny_complete) and (ctx.rules.deny or
                                                        not ctx.rules.deny_complete):
            # Deny rules could not be checked: approving blind could run a denied command.
            return Assessment(Verdict.REJECT, risk, Source.MODE,
                              f"{reason}; it cannot be checked against the deny rules",
                              commands=checks)
        return Assessment(Verdict.ALLOW, risk, Source.MODE, "approved by --auto-approve",
                          commands=checks)
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set",
                          commands=checks)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, commands=checks,
                      proposed_rules=tuple(r.text for r in proposed))


def _rule_source(rule: Rule, ctx: Context) -> Source:
    return Source.SESSION if rule in ctx.rules.session_allow else Source.RULE


def _name(risk: Risk) -> str:
    return risk.name.replace("_", "-").lower()
