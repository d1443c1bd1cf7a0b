"""A bash call through the pipeline of docs/SPEC.md §4.1: every simple command checked."""

from __future__ import annotations

from dataclasses import replace

from saikish.engine import boundary, tiers
from saikish.engine.bash.shell import (
    ESCALATORS,
    XARGS_INPUT,
    analyse,
    mentions_escalation,
)
from saikish.engine.commands.risk import (
    auto_approves,
    classify,
)
from saikish.engine.context import Context
from saikish.engine.outcomes import _allowed, _contain, _mode_or_ask, _reject_by, _why, forced_ask
from saikish.engine.permits import (
    _check,
    _deny_rule,
    _deny_unsure,
    _matches_meaning,
    _own_write,
    _permit,
    _permit_read,
    _permit_write,
    _read_concern,
)
from saikish.engine.proposals import _proposals
from saikish.engine.rules import Rule
from saikish.types import Assessment, CommandCheck, Risk, Source, Verdict


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
        printing = boundary.environment_concern(cmd.argv) if not cmd.wrapper else None
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
