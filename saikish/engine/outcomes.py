"""How a decision ends: allowed, contained, asked or rejected (docs/SPEC.md §4.1, steps 5 to 7)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from saikish.engine.context import Context
from saikish.rules import Rule
from saikish.types import (
    Assessment,
    Autonomy,
    CommandCheck,
    Mode,
    ReasonKind,
    Risk,
    Source,
    Verdict,
)


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
                          rule.text, checks, kind=ReasonKind.RULE)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, rule.text, checks,
                      forced=True, kind=ReasonKind.RULE)


def allowed(checks: Sequence[CommandCheck], risk: Risk, ctx: Context) -> Assessment:
    """Every check is permitted: allowed by the rules used, or by autonomy when none was."""
    used = list(dict.fromkeys(c.allowed_by for c in checks if c.allowed_by))
    if not used:
        return Assessment(Verdict.ALLOW, risk, Source.AUTONOMY,
                          f"every command is {risk_name(risk)} or safer, allowed under autonomy "
                          f"{ctx.autonomy.value}", commands=tuple(checks))
    session = {r.text for r in ctx.rules.session_allow}
    source = Source.SESSION if all(u in session for u in used) else Source.RULE
    return Assessment(Verdict.ALLOW, risk, source, f"allowed by {', '.join(used)}",
                      ", ".join(used), tuple(checks))


def why_blocked(check: CommandCheck) -> str:
    """Why one check is not permitted, in a few words for the reason line."""
    if check.is_redirect:
        return check.caveat or f"writes {check.argv[1]}"
    text = " ".join(check.argv)
    return f"'{text}' is {risk_name(check.risk)}" + (f" ({check.caveat})" if check.caveat else "")


# -- the contained tier (§4.1) ------------------------------------------------------


def contain(risk: Risk, reason: str, ctx: Context, proposed: Iterable[Rule],
             checks: tuple[CommandCheck, ...] = (), sandboxed: bool = False,
             kind: ReasonKind | None = None) -> Assessment:
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
        return mode_or_ask(risk, said, ctx, proposed, False, checks, kind)
    where = "in the sandbox" if sandboxed and held.sandbox else \
        "unsandboxed, as --sandbox off and --auto-approve ask" if sandboxed else \
        "after a checkpoint (saikish undo)"
    return Assessment(Verdict.ALLOW, risk, Source.SANDBOX,
                      f"not verified ({reason}): runs contained {where}", commands=checks,
                      proposed_rules=tuple(proposed), contained=True,
                      unverified=reason, kind=kind)


# -- shared tail: deny, mode, ask --------------------------------------------------


def reject_by(rule: Rule, risk: Risk, reason: str) -> Assessment:
    """Rejected by a deny rule (docs/SPEC.md §4.1 step 3)."""
    return Assessment(Verdict.REJECT, risk, Source.DENY_RULE, reason, rule.text,
                      kind=ReasonKind.RULE)


def mode_or_ask(risk: Risk, reason: str, ctx: Context, proposed: Iterable[Rule],
                 opaque: bool, checks: tuple[CommandCheck, ...] = (),
                 kind: ReasonKind | None = None) -> Assessment:
    """Steps 6 and 7: the mode answers for the person, or the person is asked."""
    proposed = tuple(proposed)
    if ctx.mode is Mode.AUTO_APPROVE and (opaque or not ctx.rules.deny_complete) and (
            ctx.rules.deny or not ctx.rules.deny_complete):
        # Deny rules could not be checked: approving blind could run a denied command.
        return Assessment(Verdict.REJECT, risk, Source.MODE,
                          f"{reason}; it cannot be checked against the deny rules",
                          commands=checks, kind=kind)
    # --auto-approve answers for the contained tier only (contain): what needs a person
    # is asked where one can answer, and rejected with this reason where none can.
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set",
                          commands=checks, kind=kind)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, commands=checks,
                      proposed_rules=proposed, kind=kind)


def rule_source(rule: Rule, ctx: Context) -> Source:
    """SESSION for a rule the person approved in this session, else RULE."""
    return Source.SESSION if rule in ctx.rules.session_allow else Source.RULE


def risk_name(risk: Risk) -> str:
    """A risk as the reason says it: `build-test`, `read-only`."""
    return risk.name.replace("_", "-").lower()
