"""A simple command -> its Risk, and why a rule may not cover it (docs/SPEC.md §4.2, §4.3).

Unknown names are UNKNOWN: only what is listed here is trusted. A *caveat*
marks arguments that change what a command really does (find -exec, git -c,
sed -i, awk system(), a pipe into an interpreter...): such a command is at
least UNKNOWN and no rule that matches its words covers it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from saikish.risk_git import classify_git
from saikish.rules import workspace_relative
from saikish.shell import ESCALATORS, SimpleCommand
from saikish.types import Autonomy, Level, Risk
from saikish.wrappers import SHELLS, is_hijack_var

R, B, W, N, D, U = (Risk.READ_ONLY, Risk.BUILD_TEST, Risk.WRITE, Risk.NETWORK,
                    Risk.DESTRUCTIVE, Risk.UNKNOWN)

# Only these directories hold the real tools; './git' or 'bin/rm' could be anything.
TRUSTED_DIRS = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})

SIMPLE: dict[str, Risk] = {
    **dict.fromkeys((
        "ls ll la dir cat head tail less more grep egrep fgrep rg ag ack wc pwd echo printf true "
        "false which whereis type file stat du df tree cut tr diff cmp comm basename dirname "
        "realpath readlink date cal whoami id groups hostname uname printenv nl tac rev od "
        "hexdump md5sum sha1sum sha256sum sha512sum cksum b2sum jq yq column paste join fold fmt "
        "expand unexpand seq sleep test [ ps pgrep free uptime locate man info help cd pushd popd "
        "dirs exit return shift : set unset wait jobs history lsof nproc arch getconf tput clear "
        "env xargs nohup timeout time nice ionice stdbuf setsid command builtin exec strings "
        "look zcat zgrep bzcat xzcat tokei cloc git-lfs shopt read local export declare typeset "
        "readonly let mapfile ulimit umask bc dc expr numfmt factor tsort iconv base64 sum"
    ).split(), R),
    **dict.fromkeys((
        "pytest py.test tox nox make cmake ninja meson gradle gradlew mvn ant jest vitest mocha "
        "tsc eslint ruff mypy pyright flake8 pylint black isort prettier rspec rake just bazel "
        "ctest phpunit unittest coverage hatch pdm poetry uv"
    ).split(), B),
    **dict.fromkeys((
        "touch mkdir cp mv tee ln install rmdir patch tar unzip zip gzip gunzip bzip2 bunzip2 xz "
        "unxz chmod chown chgrp split csplit mktemp"
    ).split(), W),
    **dict.fromkeys((
        "curl wget ssh scp sftp rsync ftp nc ncat netcat telnet ping dig nslookup host http https "
        "gh aws gcloud az brew apt apt-get yum dnf pacman apk snap flatpak"
    ).split(), N),
    **dict.fromkeys((
        "rm shred dd mkfs fdisk parted wipefs kill killall pkill reboot shutdown halt poweroff "
        "truncate crontab systemctl service mount umount swapoff"
    ).split(), D),
    **dict.fromkeys("eval source . alias trap enable hash fc".split(), U),
}
INTERPRETERS = frozenset({
    "python", "python2", "python3", "node", "nodejs", "deno", "ruby", "perl", "php", "lua",
    "Rscript", "julia", "tclsh", "osascript", "pwsh", "powershell", "irb", "ipython",
} | SHELLS)


@dataclass(frozen=True)
class Classification:
    """A command's risk, and the reason no rule can cover it (None if one can)."""

    risk: Risk
    caveat: str | None = None


def auto_approves(autonomy: Autonomy, risk: Risk) -> bool:
    """The autonomy matrix (docs/SPEC.md §4.3): True where `risk` runs without asking."""
    ceiling = {Autonomy.FULL_AUTO: Level.HIGH, Autonomy.SUPERVISED: Level.MEDIUM,
               Autonomy.CAUTIOUS: Level.LOW, Autonomy.MANUAL: None}[autonomy]
    return ceiling is not None and risk.level <= ceiling


def classify(command: SimpleCommand) -> Classification:
    """The risk of one simple command; fails closed to UNKNOWN."""
    if command.basename in ESCALATORS:
        return Classification(Risk.ESCALATION, f"{command.basename} runs as another user")
    if command.hijack:
        return Classification(U, f"sets {command.hijack}, which changes what runs")
    if command.dynamic_name:
        return Classification(U, "the command name is only known at run time")
    if command.wrapper:
        return Classification(R)  # what it runs is listed and judged on its own
    name = _trusted_name(command.name)
    if name is None:
        return Classification(U)
    args = list(command.argv[1:])
    special = _SPECIAL.get(name)
    if special is not None:
        found = special(args)
    elif name in INTERPRETERS:
        found = _interpreter(name, args, command.piped_into)
    elif name.startswith("mkfs."):
        found = Classification(D)
    else:
        found = Classification(SIMPLE.get(name, U))
    if found.caveat and found.risk.rank < U.rank:
        found = Classification(U, found.caveat)  # a dangerous argument: at least UNKNOWN
    return found


def write_risk(path: str, workspace: str) -> Risk:
    """Writing `path`: WRITE inside the workspace, DESTRUCTIVE outside it."""
    return D if os.path.isabs(workspace_relative(path, workspace)) else W


def _trusted_name(name: str) -> str | None:
    """The tool a command name really names, or None when it could be anything."""
    if "/" not in name:
        return name
    directory, base = os.path.split(name)
    return base if directory in TRUSTED_DIRS else None


# -- commands whose arguments matter ----------------------------------------------

def _has_short(args: list[str], letters: str) -> bool:
    return any(a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in letters)
               for a in args)


def _chmod(args: list[str]) -> Classification:
    recursive = _has_short(args, "R") or "--recursive" in args
    return Classification(D if recursive else W)


def _env(args: list[str]) -> Classification:
    if any(a.startswith(("-S", "--split-string")) for a in args):
        return Classification(U, "env -S runs a command split from a string")
    return Classification(R)


def _uniq(args: list[str]) -> Classification:
    files = [a for a in args if not a.startswith("-")]
    return Classification(W if len(files) > 1 else R)  # uniq IN OUT writes OUT


def _sort(args: list[str]) -> Classification:
    writes = _has_short(args, "o") or any(a.startswith("--output") for a in args)
    return Classification(W if writes else R)


def _find(args: list[str]) -> Classification:
    for arg in args:
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            return Classification(U, f"find {arg} runs other commands")
        if arg in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls"):
            return Classification(U, f"find {arg} changes files")
    return Classification(R)


def _rg(args: list[str]) -> Classification:
    if any(a == "--pre" or a.startswith("--pre=") for a in args):
        return Classification(U, "rg --pre runs a program on every file")
    return Classification(R)


def _sed(args: list[str]) -> Classification:
    if _has_short(args, "i") or any(a.startswith("--in-place") for a in args):
        return Classification(W, "sed -i edits files in place")
    if _has_short(args, "f") or any(a.startswith("--file") for a in args):
        return Classification(U, "sed -f runs a script this preview cannot show")
    scripts = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
    scripts += [a.split("=", 1)[1] for a in args if a.startswith("--expression=")]
    if not scripts:
        scripts = [a for a in args if not a.startswith("-")][:1]
    if any(_sed_script_unsafe(s) for s in scripts):
        return Classification(U, "the sed script runs commands or writes files (e/w/W)")
    return Classification(R)


def _sed_script_unsafe(script: str) -> bool:
    """True when a sed script may run a command or write a file; unsure means True."""
    i, n = 0, len(script)
    while i < n:
        i = _skip_address(script, i)
        if i >= n:
            return False
        c = script[i]
        if c in "ewW":
            return True
        if c in "sy":
            i, flags = _skip_replacement(script, i + 1, c == "s")
            if i < 0 or any(f in flags for f in "ewW"):
                return True
        elif c in "aic:btTrRqQlL":
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif c not in "{};\n\t !=dDgGhHnNpPxz#":
            return True  # a command this scanner does not know: fail closed
        i += 1
    return False


def _skip_address(script: str, i: int) -> int:
    while i < len(script):
        c = script[i]
        if c in " \t;\n0123456789$,~!+":
            i += 1
        elif c in "/\\":
            delim = script[i + 1] if c == "\\" and i + 1 < len(script) else "/"
            i = _end_of(script, i + (2 if c == "\\" else 1), delim) + 1
            while i < len(script) and script[i] in "IM":
                i += 1
        else:
            return i
    return i


def _skip_replacement(script: str, i: int, with_flags: bool) -> tuple[int, str]:
    if i >= len(script):
        return -1, ""
    delim = script[i]
    i = _end_of(script, i + 1, delim)
    i = _end_of(script, i + 1, delim)
    if i >= len(script):
        return -1, ""
    flags = ""
    while with_flags and i + 1 < len(script) and script[i + 1] not in ";\n}":
        i += 1
        flags += script[i]
    return i, flags


def _end_of(script: str, i: int, delim: str) -> int:
    while i < len(script) and script[i] != delim:
        i += 2 if script[i] == "\\" else 1
    return i


def _awk(args: list[str]) -> Classification:
    if _has_short(args, "f") or any(a.startswith("--file") for a in args):
        return Classification(U, "awk -f runs a program this preview cannot show")
    programs = [a for a in args if not a.startswith("-")][:1]
    for program in programs:
        if re.search(r"\bsystem\s*\(|\|\s*getline|\|&|\bprint[f]?\b[^;}]*(?:>|\|)", program):
            return Classification(U, "the awk program runs commands or writes files")
        if "|" in program and re.search(r"\"[^\"]*\"\s*\|", program):
            return Classification(U, "the awk program pipes into a command")
    return Classification(R)


def _interpreter(name: str, args: list[str], piped: bool) -> Classification:
    if not args or args[0] == "-":
        if piped:
            return Classification(U, f"a pipe into {name} runs whatever it is sent")
        return Classification(U)
    if args[0] in ("--version", "-V", "--help", "-h"):
        return Classification(R)
    if name.startswith("python") and len(args) >= 2 and args[0] == "-m":
        module = args[1]
        if module == "pip":
            return _pip(args[2:])
        return Classification(B if module in SIMPLE and SIMPLE[module] is B else U)
    if any(a.startswith("-") and a.lstrip("-")[:1] in ("c", "e", "E", "r") for a in args[:3]):
        return Classification(U, f"{name} runs code given on the command line")
    return Classification(B)  # runs a script from the project, like make


def _pip(args: list[str]) -> Classification:
    sub = _first_word(args)
    if sub in ("list", "show", "freeze", "check", "help", "--version", "-V", None):
        return Classification(R)
    if sub in ("install", "download", "wheel", "index", "search"):
        return Classification(N)
    if sub == "uninstall":
        return Classification(W)
    return Classification(U)


def _npm(args: list[str]) -> Classification:
    sub = _first_word(args)
    if sub in ("test", "t", "run", "run-script", "start", "build", "lint", "tst"):
        return Classification(B)
    if sub in ("ls", "list", "help", "--version", "-v", "config", "root", "bin", "prefix",
               "why", "explain", None):
        return Classification(R)
    if sub in ("install", "i", "ci", "add", "update", "up", "upgrade", "outdated", "view",
               "info", "audit", "fetch", "pack", "dlx"):
        return Classification(N)
    if sub in ("uninstall", "remove", "rm", "un", "link", "unlink", "init", "create"):
        return Classification(W)
    if sub in ("publish", "unpublish", "deprecate"):
        return Classification(D)
    return Classification(U)  # npx-like exec, unknown scripts


def _cargo(args: list[str]) -> Classification:
    sub = _first_word(args)
    if sub in ("test", "build", "check", "clippy", "run", "bench", "doc", "fmt", "b", "t", "r",
               "c", "nextest", "tree", "metadata"):
        return Classification(B)
    if sub in ("--version", "-V", "help", "version", None):
        return Classification(R)
    if sub in ("install", "add", "update", "fetch", "search", "login"):
        return Classification(N)
    if sub in ("publish", "yank"):
        return Classification(D)
    if sub in ("new", "init", "remove", "rm", "clean"):
        return Classification(W)
    return Classification(U)


def _go(args: list[str]) -> Classification:
    sub = _first_word(args)
    if sub in ("test", "build", "vet", "run", "generate"):
        return Classification(B)
    if sub in ("version", "env", "list", "doc", "help", None):
        return Classification(R)
    if sub in ("get", "install", "mod"):
        return Classification(N)
    if sub == "fmt":
        return Classification(W)
    return Classification(U)


def _docker(args: list[str]) -> Classification:
    sub = _first_word(args)
    if sub in ("ps", "images", "logs", "inspect", "version", "info", "top", "stats", None):
        return Classification(R)
    if sub in ("pull", "push", "login", "search"):
        return Classification(N)
    if sub in ("build", "compose"):
        return Classification(B)
    if sub in ("rm", "rmi", "kill", "prune", "system", "volume", "network"):
        return Classification(D)
    return Classification(U)  # run/exec run arbitrary code with the daemon's rights


def _first_word(args: list[str]) -> str | None:
    for arg in args:
        if not arg.startswith("-") or arg in ("--version", "-V", "-v"):
            return arg
    return None


_SPECIAL: dict[str, Callable[[list[str]], Classification]] = {
    "env": _env, "uniq": _uniq, "chmod": _chmod, "chown": _chmod, "chgrp": _chmod, "sort": _sort,
    "find": _find, "rg": _rg, "sed": _sed, "gsed": _sed, "awk": _awk, "gawk": _awk,
    "mawk": _awk, "nawk": _awk, "pip": _pip, "pip3": _pip, "npm": _npm, "pnpm": _npm,
    "yarn": _npm, "bun": _npm, "cargo": _cargo, "go": _go, "docker": _docker, "podman": _docker,
}


def _declared_hijack(args: list[str]) -> Classification:
    for arg in args:
        name = arg.split("=", 1)[0]
        if "=" in arg and is_hijack_var(name):
            return Classification(U, f"sets {name}, which changes what runs")
    return Classification(R)


def _git(args: list[str]) -> Classification:
    return Classification(*classify_git(args))


_SPECIAL["git"] = _git
_SPECIAL.update(dict.fromkeys(("export", "declare", "typeset", "readonly", "local"),
                              _declared_hijack))
