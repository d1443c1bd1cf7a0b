"""Checkers: what a command's words do that its grammar alone cannot say (docs/SPEC.md §4.7).

A catalogue entry names its checkers with `check NAME` lines; each is the module NAME here,
with one function `check(found: Parse) -> list[Finding]` that reads a mini-language (sed,
awk, jq, dc, SQL), or a value whose meaning depends on what it says (ps's `e`, tar's
HOST:FILE, git push's `+ref`). The catalogue loader refuses a `check` line that names no
module of this folder; CHECKS is every module, and tests/test_catalogue_format.py proves
both agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from saikish.engine.commands.checks import (
    awk,
    dc,
    git_archive,
    git_clone,
    git_config,
    git_object,
    git_push,
    integer,
    jq,
    kubectl,
    make,
    man,
    pager,
    ps,
    sed,
    setuid,
    shopt,
    sql,
    subscript,
    tar,
    urls,
)
from saikish.engine.commands.parsed import Finding, Parse

Checker = Callable[[Parse], list[Finding]]

CHECKS: Mapping[str, Checker] = {
    "awk": awk.check,
    "dc": dc.check,
    "git_archive": git_archive.check,
    "git_clone": git_clone.check,
    "git_config": git_config.check,
    "git_object": git_object.check,
    "git_push": git_push.check,
    "integer": integer.check,
    "jq": jq.check,
    "kubectl": kubectl.check,
    "make": make.check,
    "man": man.check,
    "pager": pager.check,
    "ps": ps.check,
    "sed": sed.check,
    "setuid": setuid.check,
    "shopt": shopt.check,
    "sql": sql.check,
    "subscript": subscript.check,
    "tar": tar.check,
    "urls": urls.check,
}


def run_checks(found: Parse) -> list[Finding]:
    """What the checkers the command's entries name find in it."""
    return [f for name in found.checks for f in CHECKS[name](found)]
