"""Where reads stop being harmless (docs/SPEC.md §4.8): the workspace edge and secret files.

Pure knowledge, no printing and no policy: `read_concern` says why reading a
path deserves a question (or None), `environment_concern` says the same of
commands that print the environment. The policy turns a concern into a
question for the file tools; the bash analysis asks the same functions about
the path operands of read-only commands.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence

OUTSIDE = "outside the workspace"
SECRET = "may hold secrets"
ENVIRONMENT = "prints environment variables, which may hold secrets"

# The argument that names the path each built-in read tool reads ("." when absent).
READ_TOOLS = {"read_file": "path", "list_files": "path", "grep": "path"}

# File names that hold keys, tokens or passwords (fnmatch, matched on the last part).
SECRET_NAMES = (
    ".env", ".env.*", ".envrc", "*.env", "*.pem", "*.key", "id_*", "*.p12", "*.pfx",
    "*.jks", "*.keystore", "*.kdbx", ".netrc", "_netrc", ".npmrc", ".pypirc", ".yarnrc.yml",
    ".git-credentials", ".pgpass", ".htpasswd", ".dockercfg", "credentials.json",
    "secrets.yml", "secrets.yaml", "*.tfvars", "terraform.tfstate", "service-account*.json",
    "*-sa.json", ".my.cnf", ".boto", ".dev.vars", ".secrets", ".secret", "*_history",
    ".*_history", ".vault-token", "*.ovpn", ".s3cfg", ".pgpass", "credentials",
)
# Directories whose whole content is credentials (matched on any part of the path).
SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".password-store",
               "gcloud", ".vault-token")
# Files of other processes that expose secrets (matched on the whole resolved path).
SECRET_PATHS = ("/proc/*/environ", "/proc/*/cmdline", "/proc/*/mem",
                "/proc/*/task/*/environ", "*/.config/gh/hosts.yml", ".config/gh/hosts.yml",
                "*/.config/hub", "*/.docker/config.json", "*/.git-credentials",
                # The system's own: password hashes, host keys, TLS private keys.
                "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
                "/etc/ssh/ssh_host_*key", "/etc/ssl/private/*", "/etc/ssl/private",
                "/etc/sudoers", "/etc/sudoers.d/*", "/var/lib/*", "/root", "/root/*")

# Variable names that hold credentials by convention.
SECRET_VARIABLE = re.compile(r"KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH|COOKIE|SESSION",
                              re.IGNORECASE)
# The patterns above as one regex each (a read is checked on every command: keep it cheap).
_SECRET_NAMES = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAMES))
_SECRET_PATHS = re.compile("|".join(fnmatch.translate(p) for p in SECRET_PATHS))
# Commands that print the environment when they run nothing else.
_ENV_PRINTERS = frozenset({"printenv", "env", "export", "set", "declare", "typeset"})


def resolve(path: str, workspace: str) -> str:
    """`path` as the file system sees it: ~ expanded, joined to the workspace, links resolved."""
    joined = os.path.join(workspace, os.path.expanduser(path))
    try:
        return os.path.realpath(joined)
    except (OSError, ValueError):  # an unreadable /proc entry, a NUL: judge the plain path
        return os.path.abspath(joined.replace("\0", ""))


def inside(path: str, workspace: str) -> bool:
    """True when `path` (after resolving links and '..') lies within the workspace."""
    return _within(resolve(path, workspace), workspace)


def _within(full: str, workspace: str) -> bool:
    root = _root(workspace)
    return full == root or full.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=64)
def _root(workspace: str) -> str:
    return resolve(workspace, "/")


def is_secret(path: str, workspace: str = ".") -> bool:
    """True when `path`, as written or as resolved, names a secret-bearing file or directory."""
    written = os.path.normpath(os.path.expanduser(path))
    return _secret_parts(written) or _secret_parts(resolve(path, workspace))


@functools.lru_cache(maxsize=4096)
def _secret_parts(path: str) -> bool:
    if _SECRET_PATHS.match(path):
        return True
    parts = [p for p in path.split(os.sep) if p]
    if any(part in SECRET_DIRS for part in parts):
        return True
    return bool(parts) and _SECRET_NAMES.match(parts[-1]) is not None


def read_concern(path: str, workspace: str) -> str | None:
    """Why reading `path` must be asked: SECRET, OUTSIDE, or None when it is harmless."""
    full = resolve(path, workspace)
    written = os.path.normpath(os.path.expanduser(path))
    if _secret_parts(written) or _secret_parts(full):
        return SECRET
    if not _within(full, workspace):
        return OUTSIDE
    return None


def read_path(tool: str, arguments: dict[str, object] | None) -> str | None:
    """The path a built-in read tool reads ('.' for grep without one), or None for other tools."""
    key = READ_TOOLS.get(tool)
    if key is None:
        return None
    value = (arguments or {}).get(key)
    return str(value) if value not in (None, "") else "."


def proposal_glob(path: str, workspace: str, concern: str) -> str:
    """The path an "always" answer would allow for this concern: that path only.

    Never a directory glob: `/etc/**` for /etc/hosts would also hand over every other
    file there, and a read outside is allowed for what was approved (docs/SPEC.md §4.4).
    Inside the workspace a secret is named relative to it.
    """
    root = os.path.realpath(workspace)
    full, written_root = os.path.abspath(os.path.join(workspace, os.path.expanduser(path))), \
        os.path.abspath(workspace)
    if full == written_root or full.startswith(written_root.rstrip(os.sep) + os.sep):
        full = resolve(path, workspace)  # inside by its words: named where its links lead
    # Else as written, links not followed: a rule matches a path outside the workspace by
    # its words (rules.workspace_relative), and /proc/self must stay self, not a PID.
    if concern == SECRET and inside(path, workspace):
        return os.path.relpath(full, root)
    return full


def covers(glob: str, concern: str) -> bool:
    """True when an allow rule with this path glob may lift the concern.

    Secrets need a rule that names the exact path: a glob written for a
    directory must not quietly cover the keys inside it (fail closed).
    """
    return concern != SECRET or not any(c in glob for c in "*?[")


def environment_concern(argv: Sequence[str]) -> str | None:
    """ENVIRONMENT when `argv` prints environment variables (env, printenv, export -p, ...)."""
    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name not in _ENV_PRINTERS:
        return None
    rest = list(argv[1:])
    if name == "printenv":
        # printenv NAME prints that one variable: only a secret-looking name is a concern.
        names = [w for w in rest if not w.startswith("-")]
        return ENVIRONMENT if not names or any(SECRET_VARIABLE.search(n) for n in names) \
            else None
    if name == "env":
        return None if _env_runs_command(rest) else ENVIRONMENT
    options = [w for w in rest if w.startswith("-")]
    names = [w for w in rest if not w.startswith("-")]
    if name == "set":
        return ENVIRONMENT if not rest else None
    # export/declare/typeset alone list variables; -p prints them even when named.
    return ENVIRONMENT if not names or any("p" in o for o in options) else None


def _env_runs_command(words: Sequence[str]) -> bool:
    """True when `env WORDS` runs a command ('env X=1 cmd') rather than printing."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in ("-u", "--unset", "-C", "--chdir"):
            skip = True
        elif word.startswith(("-S", "--split-string")):
            return True  # -S splits a string into a command and runs it
        elif not word.startswith("-") and "=" not in word:
            return True
    return False
