"""A bash call through the pipeline of docs/SPEC.md §4.1: every simple command checked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from saikish.engine import tiers
from saikish.engine.bash.shell import (
    ESCALATORS,
    XARGS_INPUT,
    ShellAnalysis,
    SimpleCommand,
    analyse,
    mentions_escalation,
)
from saikish.engine.commands.environment import environment_concern, expanded_secret
from saikish.engine.commands.risk import Classification, auto_approves, classify
from saikish.engine.context import Context
from saikish.engine.outcomes import (
    allowed,
    contain,
    forced_ask,
    mode_or_ask,
    reject_by,
    why_blocked,
)
from saikish.engine.permits import (
    autonomy_may,
    covering_rule,
    deny_rule,
    deny_unsure,
    matches_meaning,
    own_write,
    permit_read,
    permit_write,
    plain_check,
    remote_permit,
    target_read_concern,
)
from saikish.engine.proposals import Checked, Found, carriers, proposals
from saikish.rules import Rule
from saikish.types import Assessment, CommandCheck, ReasonKind, Risk, Source, Verdict

Pairs = list[tuple[SimpleCommand, Classification]]


def decide_bash(command: str, ctx: Context) -> Assessment:
    """Steps 2 to 7 of docs/SPEC.md §4.1 for one bash call: escalation, deny and ask
    rules, then each simple command, file write and file read checked on its own."""
    analysis = analyse(command)
    found = [Found(c, _classify(c, ctx), carrier)
             for c, carrier in zip(analysis.commands, carriers(analysis.commands), strict=True)]
    pairs = [(f.command, f.kind) for f in found]
    settled = _escalation(command, analysis, pairs) or _ruled(pairs, ctx)
    if settled is not None:
        return settled
    owned = _checks(found, ctx)
    checks = [o.check for o in owned]
    risk = Risk.highest([c.risk for c in checks] + ([Risk.UNKNOWN] if analysis.opaque else []))
    unsure = deny_unsure(pairs, ctx)
    if not analysis.opaque and not unsure and all(c.permitted for c in checks):
        if analysis.rewritten:  # never verified on a rewrite (§4.2): contained at most
            return _unverified(f"it was parsed after a rewrite of {analysis.rewritten[0]}, "
                               f"which saikish does not verify", checks, risk, ctx)
        secret = expanded_secret(command, analysis.commands, analysis.arithmetic)
        if secret:  # the sandbox has no such variable: contained at most (§4.8)
            return _unverified(f"it expands ${secret}, which may hold a secret, where "
                               f"saikish cannot follow where it goes", checks, risk, ctx,
                               ReasonKind.SECRET)
        return allowed(checks, risk, ctx)
    reason, proposed = _reason_and_proposals(analysis, unsure, owned, found, ctx)
    needs = [c.need for c in checks if not c.permitted and c.need is not None]
    # Code not fully read may be what a deny rule names: only a person can tell.
    blind = not ctx.rules.deny_complete or bool(analysis.opaque) and bool(ctx.rules.deny) \
        or analysis.parser_fault  # a parser that was stopped read nothing: a person looks
    if not unsure and not needs and not blind:
        return contain(risk, reason, ctx, proposed, tuple(checks), sandboxed=True)
    if needs and not unsure and ctx.containment.sandbox:
        reason = f"{reason}; needs a person: {needs[0]}"
    # The reason names what could not be read, or a deny rule that could match it.
    kind = ReasonKind.UNKNOWN if analysis.opaque else unsure[1] if unsure else None
    return mode_or_ask(risk, reason, ctx, proposed, bool(analysis.opaque or unsure),
                        tuple(checks), kind)


def _classify(command: SimpleCommand, ctx: Context) -> Classification:
    """The command's risk; a name PATH resolves to the workspace's own program is that
    program, code nobody read (as `./bin/ls` is): never verified, no rule covers it."""
    where = ctx.programs.workspace_program(command.name)
    if where is None or command.shadowed:
        return classify(command)
    return Classification(Risk.UNKNOWN, f"'{command.name}' on PATH is {where}, code saikish "
                                        f"has not read", hard=True, kind=ReasonKind.EXEC)


def _unverified(reason: str, checks: Sequence[CommandCheck], risk: Risk, ctx: Context,
                kind: ReasonKind = ReasonKind.UNKNOWN) -> Assessment:
    """Every part is permitted, but the call as a whole is not verified (parsed after the
    preparse module's rewrite, a secret expanded where no part shows it): it runs
    contained, or a person is asked when a part needs what the sandbox does not give (a
    rule allowed it outside the sandbox)."""
    needs = [c.need for c in checks if c.need is not None]
    if needs:
        return mode_or_ask(risk, f"{reason}; needs a person: {needs[0]}", ctx, (), False,
                           tuple(checks), kind)
    return contain(risk, reason, ctx, (), tuple(checks), sandboxed=True, kind=kind)


def _escalation(command: str, analysis: ShellAnalysis, found: Pairs) -> Assessment | None:
    """Step 2: sudo and its kind are never run, also not from code saikish cannot read."""
    escalation = [c for c, k in found if k.risk is Risk.ESCALATION]
    # Code saikish cannot read (an unknown command's words, awk's system(), python -c,
    # a name built at run time) may still run sudo: no mode may approve that blind.
    murky = analysis.opaque or any(k.hard or k.risk is Risk.UNKNOWN for _, k in found)
    hidden = mentions_escalation(command) if not escalation and murky else None
    if hidden:
        return Assessment(Verdict.REJECT, Risk.ESCALATION, Source.ESCALATION,
                          f"{hidden} is never run by saikish, also not from code it cannot "
                          f"read: run it yourself if it is needed",
                          commands=tuple(plain_check(c, k) for c, k in found),
                          kind=ReasonKind.ESCALATION)
    if not (escalation or analysis.raw_escalation):
        return None
    word = escalation[0].basename if escalation else "an escalation command"
    # An option that runs as another user (setpriv --reuid) says so in its caveat.
    why = next((k.caveat for c, k in found if k.risk is Risk.ESCALATION and k.caveat and
                c.basename not in ESCALATORS), None)
    # No mode, rule or flag overrides this (docs/SPEC.md §4.1 step 2).
    return Assessment(Verdict.REJECT, Risk.ESCALATION, Source.ESCALATION,
                      f"{word} is never run by saikish so: {why}; run it yourself if it is "
                      f"needed" if why else
                      f"{word} is never run by saikish: run it yourself if it is needed",
                      commands=tuple(plain_check(c, k) for c, k in found),
                      kind=ReasonKind.ESCALATION)


def _ruled(found: Pairs, ctx: Context) -> Assessment | None:
    """Steps 3 and 4: a deny rule rejects, an ask rule asks, whatever else says yes."""
    for cmd, _ in found:
        denied = deny_rule(cmd, ctx)
        if denied:
            return reject_by(denied, Risk.highest(k.risk for _, k in found),
                              f"'{' '.join(cmd.argv)}' is denied by rule {denied}")
    for cmd, _ in found:
        asked = next((r for r in ctx.rules.ask if matches_meaning(r, cmd)), None)
        if asked is not None:  # an ask rule: the person sees it, whatever else says yes
            return forced_ask(asked, Risk.highest(k.risk for _, k in found), ctx,
                              tuple(plain_check(c, k) for c, k in found))
    return None


def _checks(found: Sequence[Found], ctx: Context) -> list[Checked]:
    """Each command's check and those of the files it writes and reads, each with the
    index of its command (and the file)."""
    out: list[Checked] = []
    for index, item in enumerate(found):
        cmd, kind = item.command, item.kind
        check, carried = _command_check(item, ctx)
        out.append(Checked(check, index))
        if carried:  # on the other host: the rule naming the host and the command covers them
            out += [Checked(CommandCheck(("writes", t.path), check.risk, check.allowed_by,
                                         is_redirect=True), index, t) for t in cmd.writes]
            out += [Checked(CommandCheck(("reads", t.path), Risk.READ_ONLY, check.allowed_by,
                                         is_redirect=True), index, t) for t in cmd.reads]
            continue
        out += [Checked(_autonomous(permit_write(t, check.allowed_by, ctx), ctx), index, t)
                for t in cmd.writes if not own_write(t, kind, ctx)]
        for target in cmd.reads:
            concern = target_read_concern(target, ctx) \
                if target.path != XARGS_INPUT.value else None
            if concern is not None:
                out.append(Checked(_autonomous(permit_read(target, concern, ctx), ctx), index,
                                   target))
    return out


def _autonomous(check: CommandCheck, ctx: Context) -> CommandCheck:
    """`check`, run unasked when nobody permits it and the autonomy level runs its risk."""
    if check.autonomy_may and not check.permitted and auto_approves(ctx.autonomy, check.risk):
        return replace(check, auto=True)
    return check


def _command_check(item: Found, ctx: Context) -> tuple[CommandCheck, bool]:
    """One command's check, and whether a rule naming its carrier to another host (ssh
    HOST CMD) permits it, with the files it touches there."""
    cmd, kind = item.command, item.kind
    need = tiers.command_need(cmd, kind, ctx.workspace, ctx.containment.protected)
    remote = remote_permit(cmd, kind, item.carrier, ctx) if item.carrier else None
    if remote is not None:
        return replace(remote, need=need), True
    xargs_input = any(t.path == XARGS_INPUT.value for t in cmd.reads)
    rule = covering_rule(cmd, kind, ctx, naming_xargs=xargs_input)
    if rule is not None:
        return plain_check(cmd, kind, rule, need=need), False
    caveat, may, why = kind.caveat, autonomy_may(kind), kind.kind
    # A wrapper (strace CMD) prints what its command gets, unless it already blocks for more.
    printing = environment_concern(cmd) if not cmd.wrapper or not caveat else None
    if printing is not None:
        # env / printenv hand every variable to the model: a rule naming it may.
        caveat, may, why = printing, False, ReasonKind.SECRET
    elif xargs_input:
        # xargs names the files: only a rule naming xargs and the command vouches for them.
        why = why if caveat else ReasonKind.DYNAMIC
        caveat, may = caveat or "reads the files xargs is given", False
    auto = may and auto_approves(ctx.autonomy, kind.risk)
    return CommandCheck(cmd.argv, kind.risk, None, caveat, auto=auto, autonomy_may=may,
                        need=need, kind=why), False


def _reason_and_proposals(analysis: ShellAnalysis, unsure: tuple[str, ReasonKind] | None,
                          owned: Sequence[Checked], found: Sequence[Found],
                          ctx: Context) -> tuple[str, tuple[Rule, ...]]:
    """Why the call is not allowed, and the rules "always" would add (none when no rule
    can: code not fully analysed, or a deny rule that could match unseen words)."""
    if analysis.opaque:
        return f"it cannot be fully analysed: {analysis.opaque[0]}", ()
    if unsure:
        return unsure[0], ()
    blocking = [o for o in owned if not o.check.permitted]
    reason = "; ".join(why_blocked(o.check) for o in blocking[:3])
    return reason, proposals(blocking, found, ctx.workspace)
