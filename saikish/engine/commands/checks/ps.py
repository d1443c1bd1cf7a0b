"""ps's BSD `e` prints every process's environment (catalogue: `check ps`)."""

from __future__ import annotations

import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# ps options whose value may be the next word: UNIX (-o FMT) and BSD (o FMT, U USER).
_PS_VALUE_OPTIONS = frozenset({"-C", "-g", "-G", "-k", "-n", "-o", "-O", "-p", "-q", "-s",
                               "-t", "-u", "-U", "--Group", "--group", "--pid", "--ppid",
                               "--quick-pid", "--sid", "--tty", "--user", "--User",
                               "--format", "--sort", "--cols", "--columns", "--width",
                               "--rows", "--lines"})
_LONG_VALUES = frozenset(o for o in _PS_VALUE_OPTIONS if o.startswith("--"))
# The UNIX (dash) option letters procps-ng 4 reads without falling back: flags, and those
# taking a value (attached, or the next word). Any other letter in a dash cluster, or a
# value it cannot use (`-ef -t` with none, `-auxe`: no user "xe"), fails the UNIX parse,
# and procps then reads every word again the BSD way: `-efx`, `-e -x` and `-auxe` print
# the environment like `ps ex`.
_UNIX_FLAGS = frozenset("AacdefFHjlLmMNPTVwyZ")
_UNIX_VALUES = frozenset("CDgGknOopqstuU")
# Format and sort keywords (`ps L`) of the everyday -o/-O/-k values; another keyword may be
# one this procps lacks, so it counts as a value the UNIX parse may refuse.
_KEYWORDS = frozenset(
    "%cpu %mem args c cmd comm command cputime egid etime etimes euid euser f flags fname "
    "gid group lstart lwp ni nice nlwp pcpu pgid pgrp pid pmem ppid pri psr rss rsz ruid "
    "ruser s sid size start start_time stat state stime sz tgid thcount tid time tname tt "
    "tty ucmd uid uname user vsize vsz wchan".split())
_ENV = "ps e prints every process's environment"


def check(found: Parse) -> list[Finding]:
    # BSD-style `e` (`ps auxe`, `ps ax e`, `ps -A e`: styles mix freely) prints every
    # process's environment. Every dash-less word is a BSD cluster unless it is a value;
    # one built at run time ($x, xargs' input) may be `e`.
    words = found.words
    for i in found.operand_indexes:
        word, before = words[i], words[i - 1] if i > 1 else ""
        if before in _PS_VALUE_OPTIONS or (before[:1] == "-" and before[1:2] != "-" and
                                           before[-1] in "CgGknoOpqstuU") or (
                before and before[0] != "-" and before[-1] in "oOUptk"):
            continue  # the value of -o, -eo, --sort, BSD o or U
        if _may_be_e(word):
            return [Finding(Risk.UNKNOWN, _ENV, i, hard=True, kind=ReasonKind.SECRET)]
    first = words[1] if len(words) > 1 else ""
    if (first and not first.startswith("-") and "e" in first) or _read_bsd_way(words):
        return [Finding(Risk.UNKNOWN, _ENV, hard=True, kind=ReasonKind.SECRET)]
    return []


def _may_be_e(word: str) -> bool:
    return "e" in word or "$" in word or "`" in word


def _read_bsd_way(words: tuple[str, ...]) -> bool:
    """True when procps may read the dash words as BSD clusters and one of them holds e.

    Unsure means true: any word but a long option and its value may then be a cluster.
    """
    if not _unix_parse_may_fail(words):
        return False
    return any(_may_be_e(word) for i, word in enumerate(words[1:], 1)
               if not word.startswith("--") and words[i - 1] not in _LONG_VALUES)


def _unix_parse_may_fail(words: tuple[str, ...]) -> bool:
    i = 1
    while i < len(words):
        word = words[i]
        i += 1
        if word.startswith("--"):
            i += word in _LONG_VALUES  # `--sort -pid`: the value is no cluster
            continue
        if not word.startswith("-"):
            continue
        for j, letter in enumerate(word[1:], 2):
            if letter in _UNIX_VALUES:
                value = word[j:] or (words[i] if i < len(words) else "")
                i += j == len(word)
                if not _value_ok(letter, value):
                    return True
                break
            if letter not in _UNIX_FLAGS:
                return True  # `-efx`: not a UNIX option
    return False


def _value_ok(letter: str, value: str) -> bool:
    """True when procps surely accepts value for the UNIX option letter."""
    if letter in "oOk":
        names = (item.split("=")[0].lstrip("+-") for item in re.split(r"[ ,]+", value))
        return bool(value) and all(name in _KEYWORDS for name in names)
    if letter == "C":
        return re.fullmatch(r"[\w.,-]+", value) is not None
    return re.fullmatch(r"[0-9]+(,[0-9]+)*", value) is not None or (
        letter in "uU" and value == "root")
