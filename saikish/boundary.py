"""Provisional read boundary (replaced by the trust branch's module at merge)."""

from __future__ import annotations

import fnmatch
import os

from saikish.rules import workspace_relative

_SECRET = ("*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*", ".env",
           ".env.*", ".netrc", ".npmrc", ".pypirc", ".git-credentials")
_SECRET_DIRS = (".ssh", ".aws", ".gnupg")


def read_concern(path: str, workspace: str) -> str | None:
    """Why reading `path` needs a person: outside the workspace, or a secret; else None."""
    target = workspace_relative(path, workspace)
    parts = target.split(os.sep)
    if any(fnmatch.fnmatch(parts[-1], p) for p in _SECRET) or \
            any(d in parts for d in _SECRET_DIRS) or fnmatch.fnmatch(target, "/proc/*/environ"):
        return "may hold secrets"
    if os.path.isabs(target):
        return "is outside the workspace"
    return None
