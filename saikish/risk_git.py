"""git subcommands -> Risk, and the git options that name programs to run (docs/SPEC.md §4.2)."""

from __future__ import annotations

from saikish.types import Risk

R, W, N, D, U = Risk.READ_ONLY, Risk.WRITE, Risk.NETWORK, Risk.DESTRUCTIVE, Risk.UNKNOWN

# Global options (before the subcommand) that take a separate value.
_GLOBAL_WITH_VALUE = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
# Options that make git run a program or read config that does: never covered by a rule.
_PROGRAM_OPTIONS = ("-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack",
                    "--exec", "--ext-diff", "--output", "--template", "--open-files-in-pager",
                    "-O")
_PROGRAM_KEYS = ("core.pager", "pager.", "diff.external", "core.sshcommand", "core.editor",
                 "core.fsmonitor", "core.hookspath", "alias.", "credential.helper",
                 "filter.", "sequence.editor", "gpg.program", "core.askpass")

_READ = frozenset(
    "status log diff show blame rev-parse ls-files ls-tree cat-file describe shortlog grep "
    "reflog whatchanged count-objects for-each-ref name-rev merge-base rev-list show-ref "
    "symbolic-ref help version --version diff-tree diff-index diff-files check-ignore "
    "check-attr var cherry show-branch range-diff verify-commit verify-tag fsck".split())
_WRITE = frozenset(
    "add commit merge rebase cherry-pick revert mv init am apply notes mergetool "
    "format-patch commit-tree update-index update-ref read-tree write-tree mktag gc "
    "maintenance sparse-checkout bisect".split())
_NETWORK = frozenset("pull fetch clone ls-remote submodule send-email lfs archive".split())


def classify_git(args: list[str]) -> tuple[Risk, str | None]:
    """Risk and caveat of `git ARGS`; unknown subcommands (aliases can run shell) are UNKNOWN."""
    caveat = _program_option(args)
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GLOBAL_WITH_VALUE or args[i] == "-c" else 1
    if i >= len(args):
        return R, caveat
    sub, rest = args[i], args[i + 1:]
    return _subcommand(sub, rest), caveat


def _program_option(args: list[str]) -> str | None:
    for index, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        if name in _PROGRAM_OPTIONS:
            return f"git {name} can run another program or write elsewhere"
        if name == "config" or index and args[index - 1] == "config":
            continue
        if any(arg.lower().startswith(key) for key in _PROGRAM_KEYS):
            return f"git setting {arg} names a program"
    return None


def _subcommand(sub: str, rest: list[str]) -> Risk:
    flags = set(rest)
    if sub in _READ:
        return R
    if sub in _NETWORK:
        return N
    if sub == "push":
        forced = flags & {"-f", "--force", "--force-with-lease", "--delete", "-d", "--mirror",
                          "--prune"} or any(a.startswith(("+", "--force", ":")) for a in rest)
        return D if forced else N
    if sub == "reset":
        return D if flags & {"--hard", "--merge", "--keep"} else W
    if sub == "clean":
        return R if flags & {"-n", "--dry-run"} else D
    if sub in ("checkout", "switch"):
        discards = flags & {"-f", "--force", "--", ".", "--discard-changes", "-p", "--patch"}
        return D if discards else W
    if sub == "restore":
        staged_only = bool(flags & {"--staged", "-S"}) and not flags & {"--worktree", "-W"}
        return W if staged_only else D
    if sub in ("branch", "tag"):
        return _branch_or_tag(sub, rest)
    if sub == "stash":
        action = rest[0] if rest else "push"
        if action in ("list", "show"):
            return R
        return D if action in ("drop", "clear") else W
    if sub == "remote":
        return R if not rest or rest[0] in ("-v", "--verbose", "show", "get-url") else (
            N if rest[0] in ("update", "prune") else W)
    if sub == "config":
        return _config(rest)
    if sub == "worktree":
        return R if rest[:1] == ["list"] else (D if rest[:1] == ["remove"] else W)
    if sub in _WRITE:
        return W
    if sub in ("rm", "prune", "filter-branch", "replace"):
        return D
    return U


def _branch_or_tag(sub: str, rest: list[str]) -> Risk:
    listing = {"-l", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
               "--show-current", "--contains", "--merged", "--no-merged", "-n", "--points-at",
               "--sort", "--format", "--column", "--no-column"}
    if not rest or all(a in listing or a.startswith(("--sort=", "--format=")) for a in rest):
        return R
    if {"-D", "--delete", "-d"} & set(rest):
        return D if "-D" in rest or sub == "tag" else W
    return W


def _config(rest: list[str]) -> Risk:
    reading = {"--get", "--get-all", "--get-regexp", "-l", "--list", "--show-origin",
               "--show-scope", "--name-only", "--get-urlmatch"}
    if set(rest) & reading or len([a for a in rest if not a.startswith("-")]) <= 1:
        return R
    return W
