"""Commands that run other commands: wrappers, shells with -c, eval (docs/SPEC.md §4.2).

Also the variables that change which code a command runs. The shell module
uses these to look through `env`, `timeout`, `xargs`, `find -exec`, `bash -c`
and friends to the command that really runs.
"""

from __future__ import annotations

import os
from typing import Any

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "busybox"})
# Variables that change which code a command runs: a rule for the command's
# words does not cover a command that sets them.
HIJACK_VARS = frozenset({
    "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "IFS",
    "PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN",
    "LESSCLOSE", "NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME",
    "PYTHONINSPECT", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
    "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4",
    "HOME", "XDG_CONFIG_HOME", "SSH_ASKPASS", "SUDO_ASKPASS", "CDPATH", "TERMINFO",
})
HIJACK_PREFIXES = ("GIT_", "LD_", "DYLD_", "NPM_CONFIG_", "BASH_FUNC_", "CARGO_", "RUSTC")


def is_hijack_var(name: str) -> bool:
    """True for a variable whose value changes which code runs."""
    return name in HIJACK_VARS or name.startswith(HIJACK_PREFIXES) or name.endswith("_OPTIONS")


# What a wrapper runs: (start, end) of the inner command in argv[1:], and a
# hijacking variable it sets; None when it runs nothing else.
Span = tuple[int, int, "str | None"]


def unwrap(argv: tuple[str, ...]) -> tuple[str, int, int, str | None] | None:
    """(wrapper, start, end, hijacked variable): argv[start:end] is what argv runs."""
    name = os.path.basename(argv[0])
    unwrap = _WRAPPERS.get(name)
    span = unwrap(list(argv[1:])) if unwrap else None
    if span is None:
        return None
    start, end, hijack = span
    return name, start + 1, end + 1, hijack


def _options_end(args: list[str], with_value: frozenset[str]) -> int:
    """Index of the first word after the leading options (and their values)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return i + 1
        i += 2 if args[i] in with_value else 1
    return i


def _plain(args: list[str]) -> Span | None:
    start = _options_end(args, frozenset())
    return (start, len(args), None) if start < len(args) else None


def _env(args: list[str]) -> Span | None:
    if any(a in ("-S", "--split-string") or a.startswith(("--split-string=", "-S"))
           for a in args):
        return None  # env -S splits one string into a command: not followed, see risk
    i = _options_end(args, frozenset({"-u", "--unset", "-C", "--chdir"}))
    hijack = None
    while i < len(args) and "=" in args[i] and not args[i].startswith("="):
        name = args[i].split("=", 1)[0]
        hijack = name if is_hijack_var(name) else hijack
        i += 1
    return (i, len(args), hijack) if i < len(args) else (i, i, hijack)


def _timeout(args: list[str]) -> Span | None:
    start = _options_end(args, frozenset({"-s", "--signal", "-k", "--kill-after"})) + 1
    return (start, len(args), None) if start < len(args) else None  # skip the duration


def _nice(args: list[str]) -> Span | None:
    start = _options_end(args, frozenset({"-n", "--adjustment", "-c", "--class", "-p",
                                          "--pid", "-i", "-o", "-e"}))
    return (start, len(args), None) if start < len(args) else None


def _xargs(args: list[str]) -> Span | None:
    start = _options_end(args, frozenset({
        "-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n",
        "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}))
    return (start, len(args), None) if start < len(args) else None  # bare xargs: echo


def _command(args: list[str]) -> Span | None:
    if any(a in ("-v", "-V") for a in args[:2]):
        return None  # 'command -v x' only looks x up
    return _plain(args)


def _exec(args: list[str]) -> Span | None:
    start = _options_end(args, frozenset({"-a"}))
    return (start, len(args), None) if start < len(args) else None


def _find(args: list[str]) -> Span | None:
    for i, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            return (i + 1, end, None) if end > i + 1 else None
    return None


_WRAPPERS: dict[str, Any] = {
    "env": _env, "command": _command, "builtin": _plain, "exec": _exec, "nohup": _plain,
    "timeout": _timeout, "time": _plain, "nice": _nice, "ionice": _nice, "xargs": _xargs,
    "stdbuf": _nice, "setsid": _plain, "find": _find,
}


def inline_script(argv: tuple[str, ...]) -> tuple[int, str] | None:
    """(index of the first script word, script) that a shell -c or eval would run."""
    name = os.path.basename(argv[0])
    if name == "eval":
        return (1, " ".join(argv[1:])) if len(argv) > 1 else None
    if name not in SHELLS:
        return None
    for i, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return (i + 1, argv[i + 1]) if i + 1 < len(argv) else None
        if not arg.startswith("-"):
            return None
    return None
