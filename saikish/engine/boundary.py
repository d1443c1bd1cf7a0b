"""Where reads stop being harmless (docs/SPEC.md §4.8): the workspace edge and secret files.

Pure knowledge, no printing and no policy: `read_concern` says why reading a
path deserves a question (or None), `is_secret_variable` which variables hold
credentials (saikish/engine/commands/environment.py asks it about commands that
print the environment). The policy turns a concern into a
question for the file tools; the bash analysis asks the same functions about
the path operands of read-only commands.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re

from saikish.rules import real_path, workspace_root

OUTSIDE = "outside the workspace"
SECRET = "may hold secrets"
ENVIRONMENT = "prints environment variables or credentials, which may hold secrets"
# How every caveat about a secret value handed on ends (ENVIRONMENT, `echo $TOKEN`).
SECRET_VALUES = ("which may hold secrets", "which may hold a secret")

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
    "secrets.json", "secret.json", "secret.yml", "secret.yaml", "secrets.toml",
)
# Names secret-bearing files take, spelled out: a glob that matches one of them may read
# a secret (`cat *.pem`, `cat id_*`); the patterns above cannot be matched against a glob.
SECRET_SAMPLES = ("id_rsa", "id_ed25519", "id_ecdsa", "x.pem", "x.key", "x.p12", "x.pfx",
                  "credentials", ".env", ".env.local", ".netrc", ".npmrc", ".pypirc",
                  ".git-credentials", "secrets.json", "x.keystore")
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

# Variable names that hold credentials by convention (any case: `printenv github_token`).
# ...and connection strings and hooks that carry their password or token in the value
# (DATABASE_URL=postgres://u:pw@h, SENTRY_DSN, SLACK_WEBHOOK_URL, MONGODB_URI).
SECRET_VARIABLE = re.compile(r"KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH|COOKIE|SESSION|^AWS_|"
                             r"DSN|WEBHOOK|PRIVATE|CONN(?:ECTION)?_?STR|"
                             r"(?:DATABASE|DB|REDIS|MONGO\w*|AMQP|RABBITMQ|BROKER)_UR[LI]",
                             re.IGNORECASE)
# The patterns above as one regex each (a read is checked on every command: keep it cheap).
_SECRET_NAMES = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAMES))
_SECRET_PATHS = re.compile("|".join(fnmatch.translate(p) for p in SECRET_PATHS))


def resolve(path: str, workspace: str) -> str:
    """`path` as the file system sees it: ~ expanded, joined to the workspace, links resolved
    (once per decision: rules.one_look)."""
    joined = os.path.join(workspace, os.path.expanduser(path))
    try:
        return real_path(joined)
    except (OSError, ValueError):  # an unreadable /proc entry, a NUL: judge the plain path
        return os.path.abspath(joined.replace("\0", ""))


def inside(path: str, workspace: str) -> bool:
    """True when `path` (after resolving links and '..') lies within the workspace."""
    return _within(resolve(path, workspace), workspace)


def _within(full: str, workspace: str) -> bool:
    root = workspace_root(workspace)
    return full == root or full.startswith(root.rstrip(os.sep) + os.sep)


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
    root = workspace_root(workspace)
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


def glob_may_match_secret(name_glob: str) -> bool:
    """True when a file-name glob may match a secret-bearing file (a glob without a
    leading dot does not match dot files, as bash expands it)."""
    return any(fnmatch.fnmatchcase(sample, name_glob) for sample in SECRET_SAMPLES
               if name_glob.startswith(".") or not sample.startswith("."))


def is_secret_variable(name: str) -> bool:
    """True when an environment variable's name says it holds a credential (`*_TOKEN`,
    `*_KEY`, `AWS_*`...): printing its value hands the secret to the model."""
    return bool(SECRET_VARIABLE.search(name))
