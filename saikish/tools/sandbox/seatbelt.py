"""The macOS sandbox: a sandbox-exec (Seatbelt) profile in step with the bwrap one.

docs/SPEC.md §4.9. Modelled on Codex's Seatbelt base policy: closed by default, no
network at all. Where bwrap replaces the home with a fresh one, Seatbelt denies reading
it instead, but for the toolchain directories and the workspace; the secret stores are
denied last (in SBPL the last matching rule wins). Writes only under the writable roots,
minus the protected paths, which need not exist (a subpath rule matches a path that does
not exist yet, so nothing can create `.git` or `agent.yml` either). Seatbelt has no
mount namespace: the git guards reach git only as GIT_CONFIG_* variables there, and the
environment is cleared with `env -i`. Written and reviewed, but not run by our tests:
they run on Linux.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

BASE_PROFILE = """\
(version 1)
(deny default)
; Children inherit this policy; they may signal and inspect only each other.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo")
                   (global-name "com.apple.sysmond"))
(allow file-write-data (require-all (path "/dev/null") (vnode-type CHARACTER-DEVICE)))
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+"))
; No network-* and no system-socket: (deny default) leaves the command offline.
"""


@dataclass(frozen=True)
class Seatbelt:
    """What the profile is made of: paths only, passed as parameters."""

    writable: tuple[str, ...]
    protected: tuple[str, ...]
    home: str
    workspace: str
    toolchains: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()

    def parameters(self) -> list[str]:
        """-D NAME=PATH for every path the profile names."""
        groups = {"WRITABLE": self.writable, "PROTECTED": self.protected,
                  "TOOLCHAIN": self.toolchains, "SECRET": self.secrets,
                  "ANCESTOR": _ancestors(self.workspace, self.home)}
        params = [f"-DHOME={self.home}", f"-DWORKSPACE={self.workspace}"]
        return params + [f"-D{name}_{i}={path}" for name, paths in groups.items()
                         for i, path in enumerate(paths)]


def seatbelt_profile(seatbelt: Seatbelt) -> str:
    """The profile text; paths come in as -D parameters, never spliced into the text."""
    def params(name: str, count: int) -> str:
        return " ".join(f'(subpath (param "{name}_{i}"))' for i in range(count))

    reads = ["(allow file-read*)",
             '(deny file-read* (subpath (param "HOME")))',
             # Paths through the home to the workspace must resolve (getcwd, realpath).
             '(allow file-read-metadata (literal (param "HOME")))']
    ancestors = len(_ancestors(seatbelt.workspace, seatbelt.home))
    if ancestors:
        reads.append("(allow file-read-metadata " + " ".join(
            f'(literal (param "ANCESTOR_{i}"))' for i in range(ancestors)) + ")")
    visible = params("TOOLCHAIN", len(seatbelt.toolchains))
    visible += ' (subpath (param "WORKSPACE")) ' + params("WRITABLE", len(seatbelt.writable))
    reads.append(f"(allow file-read* {visible.strip()})")
    carve_outs = "".join(f' (require-not (subpath (param "PROTECTED_{p}")))'
                         for p in range(len(seatbelt.protected)))
    roots = [f'  (require-all (subpath (param "WRITABLE_{i}")){carve_outs})'
             for i in range(len(seatbelt.writable))]
    writes = "(allow file-write*\n" + "\n".join(roots) + ")"
    last = [f"(deny file-read* file-write* {params('SECRET', len(seatbelt.secrets))})"] \
        if seatbelt.secrets else []
    return BASE_PROFILE + "\n".join([*reads, writes, *last]) + "\n"


def seatbelt_argv(launcher: str, seatbelt: Seatbelt, env: Mapping[str, str],
                  argv: Sequence[str]) -> list[str]:
    """`sandbox-exec -p PROFILE -D ... /usr/bin/env -i NAME=VALUE ... argv`."""
    settings = [f"{name}={value}" for name, value in env.items()]
    return [launcher, "-p", seatbelt_profile(seatbelt), *seatbelt.parameters(),
            "/usr/bin/env", "-i", *settings, *argv]


def _ancestors(workspace: str, home: str) -> tuple[str, ...]:
    """The directories between the home and the workspace (both excluded)."""
    if not workspace.startswith(home.rstrip("/") + "/"):
        return ()
    found, path = [], os.path.dirname(workspace)
    while path != home and path.startswith(home.rstrip("/") + "/"):
        found.append(path)
        path = os.path.dirname(path)
    return tuple(found)
