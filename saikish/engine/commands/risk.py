"""A simple command -> its Risk, and what a rule must name to cover it (docs/SPEC.md §4.7).

The catalogue grammar did the reading (saikish/engine/commands/grammar.py); this module
adds what the words alone do not say: escalation, hijacking variables, names only known at run time,
functions shadowing a command, code fed on stdin, and the few mini-languages whose
scripts are arguments (sed, awk, dc, git refspecs, `test -v`). Unknown names are UNKNOWN:
only what the catalogue lists is trusted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from saikish.engine.bash.hijack import is_hijack_var
from saikish.engine.bash.shell import ESCALATORS, SimpleCommand
from saikish.engine.boundary import is_secret
from saikish.engine.commands.grammar import Finding, Parse
from saikish.engine.rules import in_git_dir, workspace_relative
from saikish.types import Autonomy, Level, Risk

R, B, W, N, D, U = (Risk.READ_ONLY, Risk.BUILD_TEST, Risk.WRITE, Risk.NETWORK,
                    Risk.DESTRUCTIVE, Risk.UNKNOWN)

# Only these directories hold the real tools; './git' or 'bin/rm' could be anything.
TRUSTED_DIRS = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})


@dataclass(frozen=True)
class Classification:
    """A command's risk, why a prefix rule cannot cover it, and what a rule must name."""

    risk: Risk
    caveat: str | None = None
    # No rule at all covers the command (a word built at run time, a hijacked variable).
    hard: bool = False
    # argv indexes of words (risk-raising or unknown options) a rule must name literally.
    named: tuple[int, ...] = ()


_CEILING = {Autonomy.FULL_AUTO: Level.HIGH, Autonomy.SUPERVISED: Level.MEDIUM,
            Autonomy.CAUTIOUS: Level.LOW, Autonomy.MANUAL: None}


def auto_approves(autonomy: Autonomy, risk: Risk) -> bool:
    """The autonomy matrix (docs/SPEC.md §4.3): True where `risk` runs without asking."""
    ceiling = _CEILING[autonomy]
    return ceiling is not None and risk.level <= ceiling


def write_risk(path: str, workspace: str) -> Risk:
    """Writing `path`: WRITE inside the workspace, DESTRUCTIVE outside it or in `.git`."""
    return relative_write_risk(workspace_relative(path, workspace))


def relative_write_risk(relative: str) -> Risk:
    """write_risk of a path already made workspace-relative (rules.workspace_relative)."""
    return D if os.path.isabs(relative) or in_git_dir(relative) else W


def classify(command: SimpleCommand) -> Classification:
    """The risk of one simple command; fails closed to UNKNOWN."""
    if command.basename in ESCALATORS:
        return Classification(Risk.ESCALATION, f"{command.basename} runs as another user",
                              hard=True)
    if command.hijack:
        return Classification(U, f"sets {command.hijack}, which changes what runs", hard=True)
    if command.dynamic_name:
        return Classification(U, "the command name is only known at run time", hard=True)
    if command.shadowed:
        return Classification(U, f"a function named {command.basename} is defined in this "
                                 f"command and runs instead", hard=True)
    found = command.parse
    if found is None:  # a bare redirection such as '> f': its write is judged on its own
        return Classification(R)
    if _trusted_name(command.name) is None or not found.known:
        return Classification(U)  # could be anything: an explicit rule may allow it
    findings = list(found.findings) + _stdin(command, found) + _semantic(found)
    findings += _secret_expansions(command)
    risk = Risk.highest([found.risk] + [f.risk for f in findings])
    if risk is Risk.ESCALATION:  # an entry or option that runs as another user (setpriv)
        why = next((f.why for f in findings if f.risk is Risk.ESCALATION and f.why),
                   f"{' '.join(found.path)} runs as another user")
        return Classification(Risk.ESCALATION, why, hard=True)
    # The hard reason first: it is why no rule can cover the command at all.
    blocking = sorted((f for f in findings if f.hard or f.index is not None),
                      key=lambda f: not f.hard)
    return Classification(
        risk, blocking[0].why if blocking else None, any(f.hard for f in blocking),
        tuple(sorted({f.index for f in blocking if f.index is not None and not f.hard})))


_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Environment variables named for credentials (upper case by convention; a shell's own
# lower-case `$key` in a loop is not one).
_SECRET_NAME = re.compile(r"^[A-Z0-9_]*(KEY|SECRET|TOKEN|PASS|PASSWD|PASSWORD|CREDENTIALS?|"
                          r"AUTH)[A-Z0-9_]*$")


def _secret_expansions(command: SimpleCommand) -> list[Finding]:
    """`echo $AWS_SECRET_ACCESS_KEY` hands the value to the model, as `env` would."""
    for word in command.argv[1:]:
        for name in _EXPANSION.findall(word):
            if _SECRET_NAME.match(name):
                return [Finding(U, f"it expands ${name}, which may hold a secret", hard=True)]
    return []


def _trusted_name(name: str) -> str | None:
    """The tool a command name really names, or None when it could be anything."""
    if "/" not in name:
        return name
    directory, base = os.path.split(name)
    return base if directory in TRUSTED_DIRS else None


def _stdin(command: SimpleCommand, found: Parse) -> list[Finding]:
    """An interpreter with no script runs what its stdin holds."""
    if not found.stdin_code:
        return []
    name = found.path[0]
    if command.stdin == "pipe":
        return [Finding(U, f"a pipe into {name} runs whatever it is sent", hard=True)]
    if command.stdin in ("heredoc", "herestring"):
        if found.shell:
            return []  # the script was analysed command by command
        return [Finding(U, f"{name} runs code from a here-document", hard=True)]
    if command.stdin == "file":
        return [Finding(B, f"{name} runs a script file")]
    # No script: the code comes from wherever stdin is, which no preview shows.
    return [Finding(U, f"{name} with no script runs code from its input", hard=True)]


# -- mini-languages whose scripts are arguments -------------------------------------

def _semantic(found: Parse) -> list[Finding]:
    check = _SEMANTIC.get(found.path[:2]) or _SEMANTIC.get(found.path[:1])
    return check(found) if check else []


def _values(found: Parse, *names: str) -> list[str]:
    return [v for n, v in found.options if n in names and v is not None]


def _sed(found: Parse) -> list[Finding]:
    scripts = _values(found, "--expression")
    if not scripts and not _values(found, "--file"):
        scripts = list(found.operands[:1])
    if any(_sed_script_unsafe(s) for s in scripts):
        return [Finding(U, "the sed script runs commands or writes files (e/w/W), or reads "
                           "them (r/R)", hard=True)]
    return []


def _sed_script_unsafe(script: str) -> bool:
    """True when a sed script may run a command or write a file; unsure means True."""
    i, n = 0, len(script)
    while i < n:
        i = _skip_address(script, i)
        if i >= n:
            return False
        c = script[i]
        if c in "ewWrR":
            return True  # e runs, w/W write, r/R read a file: none is seen by the boundary
        if c in "sy":
            i, flags = _skip_replacement(script, i + 1, c == "s")
            if i < 0 or any(f in flags for f in "ewW"):
                return True
        elif c in "aic:btTqQlL":
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif c not in "{};\n\t !=dDgGhHnNpPxzF#":
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


# Checked on the program with its string literals emptied, so a '}' or ';' inside a
# string cannot end a statement early; any '>' or '|' after print/printf counts, even a
# comparison (asking too often is the safe mistake here).
_AWK_UNSAFE = re.compile(
    r"\bsystem\b|\|\s*getline|\|&|\bprint[f]?\b[^;}\n]*[>|]|\bgetline\b[^;}\n]*<|"
    r"@|\bclose\b|\bfflush\b|ENVIRON|PROCINFO|\"\s*\|")
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _awk(found: Parse) -> list[Finding]:
    if _values(found, "--file", "-f", "--source", "--include", "--load"):
        return []  # the grammar already marked these
    for text in found.operands[:1]:
        if '"' in text and text.count('"') % 2:
            return [Finding(U, "the awk program's quotes do not balance", hard=True)]
        plain = _AWK_STRING.sub('""', text)
        if _AWK_UNSAFE.search(plain):
            return [Finding(U, "the awk program runs commands or writes files", hard=True)]
    return []


def _dc(found: Parse) -> list[Finding]:
    scripts = _values(found, "--expression", "-e")
    if any("!" in s for s in scripts):
        return [Finding(U, "the dc script runs a shell command (!)", hard=True)]
    return []


def _git_push(found: Parse) -> list[Finding]:
    # '+main' forces, ':main' deletes the remote branch: both rewrite what others have.
    for ref, index in zip(found.operands[1:], found.operand_indexes[1:], strict=False):
        if ref.startswith("+") or ref.startswith(":") or ":+" in ref:
            return [Finding(D, f"git push {ref} forces or deletes a remote branch", index)]
    return []


def implied_options(found: Parse) -> set[str]:
    """Options a command's operands spell another way: `git push origin +main` is --force."""
    if found.path[:2] != ("git", "push"):
        return set()
    refs = found.operands[1:]
    implied = set()
    if any(r.startswith("+") or ":+" in r for r in refs):
        implied.add("--force")
    if any(r.startswith(":") for r in refs):
        implied |= {"--delete", "--force"}  # deleting a remote branch is forcing it away
    return implied


def _git_object(found: Parse) -> list[Finding]:
    # `git show HEAD:.env` prints a file from history: a secret is one wherever it lives.
    for word, index in zip(found.operands, found.operand_indexes, strict=False):
        path = word.split(":", 1)[1] if ":" in word else ""
        if path and is_secret(path):
            return [Finding(R, f"git prints {path} from history, which may hold secrets",
                            index, hard=True)]
    return []


def _tar(found: Parse) -> list[Finding]:
    # GNU tar: an archive name with a colon is HOST:FILE, reached with rsh (--force-local
    # turns that off): a read-only listing that opens a remote shell.
    if any(n in ("--force-local", "--rsh-command") for n, _ in found.options):
        return []  # local, or the remote shell's own option already asks
    for name in _values(found, "--file"):
        if ":" in name and "/" not in name.split(":", 1)[0]:
            return [Finding(U, f"tar reaches {name} on another machine through a remote "
                               f"shell", hard=True)]
    return []


def _git_config(found: Parse) -> list[Finding]:
    # git 2.46+ subcommands: `git config edit` opens the editor on the config, `set`,
    # `unset`, `rename-section`, `remove-section` change it (a key always has a dot).
    first = found.operands[0] if found.operands else ""
    if first in ("edit", "set", "unset", "rename-section", "remove-section"):
        return [Finding(U, f"git config {first} changes configuration, which can name "
                           f"programs to run", found.operand_indexes[0])]
    return []


def _git_archive(found: Parse) -> list[Finding]:
    # git archive --prefix=.git/hooks/ | tar -x: the members land in .git
    for prefix in _values(found, "--prefix"):
        if in_git_dir(prefix.rstrip("/") or "."):
            return [Finding(D, f"git archive --prefix={prefix} names members inside .git, "
                               f"where git finds programs to run", hard=True)]
    return []


# shopt options that change what later commands do in ways the analysis does not follow.
_SHOPT_UNSEEN = frozenset({"cdable_vars", "lastpipe", "expand_aliases", "execfail",
                           "sourcepath", "extdebug"})


def _shopt(found: Parse) -> list[Finding]:
    named = [w for w in found.operands if w in _SHOPT_UNSEEN]
    if named and any(n == "-s" for n, _ in found.options):
        return [Finding(U, f"shopt -s {named[0]} changes what the commands after it do, "
                           f"which saikish does not follow", hard=True)]
    return []


def _let(found: Parse) -> list[Finding]:
    if any("[" in w for w in found.operands):
        return [Finding(U, "let evaluates an array subscript, which can run code", hard=True)]
    return []


def _integer(found: Parse) -> list[Finding]:
    # declare -i x='a[$(cmd)]': an integer variable's value is evaluated as arithmetic.
    if any(name == "-i" for name, _ in found.options) and \
            any("[" in w.split("=", 1)[1] for w in found.operands if "=" in w):
        return [Finding(U, f"{found.path[0]} -i evaluates the value as arithmetic, and its "
                           f"array subscript can run code", hard=True)]
    return []


def _test(found: Parse) -> list[Finding]:
    words = found.operands
    for i, word in enumerate(words[:-1]):
        if word == "-v" and "[" in words[i + 1]:
            return [Finding(U, "test -v evaluates an array subscript, which can run code",
                            hard=True)]
    return []


def _man(found: Parse) -> list[Finding]:
    # man -l FILE, or any operand with a '/', formats a file: no boundary sees it.
    if any(n == "--local-file" for n, _ in found.options) or \
            any("/" in w for w in found.operands):
        return [Finding(U, "man reads a file given by path", hard=True)]
    return []


def _urls(found: Parse) -> list[Finding]:
    # curl file:///etc/shadow is a local read dressed as a download.
    for word, index in zip(found.operands, found.operand_indexes, strict=False):
        if word.lower().startswith(("file:", "dict:", "gopher:", "telnet:")):
            return [Finding(U, f"{word} reads a local file or opens a raw socket", index,
                            hard=True)]
    return []


def _kubectl(found: Parse) -> list[Finding]:
    words = set(found.operands) | {n for n, _ in found.options}
    if words & {"secret", "secrets", "--raw"}:
        return [Finding(U, "kubectl prints cluster secrets or credentials", hard=True)]
    return []


_JQ_UNSAFE = re.compile(r"\$ENV|\benv\b|\bload(_str)?\s*\(|\bstrenv\s*\(|\binput_filename\b")


def _jq(found: Parse) -> list[Finding]:
    if any(_JQ_UNSAFE.search(word) for word in found.operands[:1]):
        return [Finding(U, "the jq/yq program reads the environment or a file", hard=True)]
    return []


# ps options whose value may be the next word: UNIX (-o FMT) and BSD (o FMT, U USER).
_PS_VALUE_OPTIONS = frozenset({"-C", "-g", "-G", "-k", "-n", "-o", "-O", "-p", "-q", "-s",
                               "-t", "-u", "-U", "--Group", "--group", "--pid", "--ppid",
                               "--quick-pid", "--sid", "--tty", "--user", "--User",
                               "--format", "--sort", "--cols", "--columns", "--width",
                               "--rows", "--lines"})


def _ps(found: Parse) -> list[Finding]:
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
        if "e" in word or "$" in word or "`" in word:
            return [Finding(U, "ps e prints every process's environment", i, hard=True)]
    first = words[1] if len(words) > 1 else ""
    if first and not first.startswith("-") and "e" in first:
        return [Finding(U, "ps e prints every process's environment", hard=True)]
    return []


def _make(found: Parse) -> list[Finding]:
    for word in found.operands:
        name = word.split("=", 1)[0]
        if "=" in word and (is_hijack_var(name) or name in ("SHELL", "MAKE", "MAKESHELL")):
            return [Finding(U, f"make {name}=... names a program make runs", hard=True)]
    return []


def _setuid(found: Parse) -> list[Finding]:
    modes = list(found.operands[:1]) + [v for n, v in found.options if n == "--mode" and v]
    for mode in modes:
        if re.fullmatch(r"[0-7]*[4267][0-7]{3}", mode) or re.search(r"[ugoa]*[+=][rwxXt]*s", mode):
            return [Finding(D, f"mode {mode} sets set-user-ID or set-group-ID", hard=True)]
    return []


def _git_clone(found: Parse) -> list[Finding]:
    if any(w.startswith("ext::") for w in found.operands):
        return [Finding(U, "an ext:: URL runs a command", hard=True)]
    return []


def _pager(found: Parse) -> list[Finding]:
    if any(w.startswith("+") for w in found.operands):
        return [Finding(U, f"{found.path[0]} +COMMAND runs a pager command at start", hard=True)]
    return []


_SOCAT_EXEC = re.compile(r"^(exec|system|file|open|create|gopen|pipe|unix[-\w]*|abstract)[:,]",
                         re.IGNORECASE)


def _socat(found: Parse) -> list[Finding]:
    if any(_SOCAT_EXEC.search(w) for w in found.operands):
        return [Finding(U, "a socat address runs a program or opens a local file or socket",
                        hard=True)]
    return []


_SQL_UNSAFE = re.compile(r"^\s*\.(shell|system|output|once|import|load|read|open|save|backup|"
                         r"restore|excel|cd|log|trace|dump)\b|load_extension|writefile|readfile|"
                         r"\battach\b|\bedit\s*\(|\\!|\bsystem\b|load_file|into\s+(out|dump)file",
                         re.IGNORECASE | re.MULTILINE)


def _sql(found: Parse) -> list[Finding]:
    if any(_SQL_UNSAFE.search(w) for w in found.operands) or any(
            v and _SQL_UNSAFE.search(v) for _, v in found.options):
        return [Finding(U, "the SQL runs programs or reads or writes files", hard=True)]
    return []


_SEMANTIC: dict[tuple[str, ...], Callable[[Parse], list[Finding]]] = {
    ("sed",): _sed, ("gsed",): _sed, ("awk",): _awk, ("gawk",): _awk, ("mawk",): _awk,
    ("nawk",): _awk, ("dc",): _dc, ("git", "push"): _git_push, ("test",): _test,
    ("[",): _test, ("git", "show"): _git_object, ("git", "cat-file"): _git_object,
    ("let",): _let, ("tar",): _tar, ("gtar",): _tar, ("git", "config"): _git_config,
    ("shopt",): _shopt, ("git", "archive"): _git_archive,
    ("declare",): _integer, ("typeset",): _integer, ("local",): _integer,
    ("man",): _man, ("curl",): _urls, ("wget",): _urls,
    ("kubectl",): _kubectl, ("jq",): _jq, ("yq",): _jq, ("ps",): _ps, ("make",): _make,
    ("chmod",): _setuid, ("install",): _setuid, ("git", "clone"): _git_clone,
    ("less",): _pager, ("more",): _pager, ("socat",): _socat, ("sqlite3",): _sql,
    ("mysql",): _sql,
}
