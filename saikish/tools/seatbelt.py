"""The macOS sandbox: a sandbox-exec (Seatbelt) profile equivalent to the bwrap one.

docs/SPEC.md §4.9. Modelled on Codex's Seatbelt base policy: closed by default,
reads allowed everywhere, writes only under the writable roots (minus the
protected paths), no network at all. Written and reviewed, but not run by our
tests: they run on Linux.
"""

from __future__ import annotations

from collections.abc import Sequence

BASE_PROFILE = """\
(version 1)
(deny default)
; Children inherit this policy; they may signal and inspect only each other.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow file-read*)
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


def seatbelt_profile(writable_count: int, protected_count: int) -> str:
    """The profile text; paths come in as -D parameters, never spliced into the text."""
    roots = []
    for index in range(writable_count):
        carve_outs = "".join(f' (require-not (subpath (param "PROTECTED_{p}")))'
                             for p in range(protected_count))
        roots.append(f'  (require-all (subpath (param "WRITABLE_{index}")){carve_outs})')
    return BASE_PROFILE + "(allow file-write*\n" + "\n".join(roots) + ")\n"


def seatbelt_argv(launcher: str, writable: Sequence[str], protected: Sequence[str],
                  temp_dir: str, unset: Sequence[str], argv: Sequence[str]) -> list[str]:
    """`sandbox-exec -p PROFILE -D ... env -u SECRET TMPDIR=... argv`."""
    params = [f"-DWRITABLE_{i}={path}" for i, path in enumerate(writable)]
    params += [f"-DPROTECTED_{i}={path}" for i, path in enumerate(protected)]
    profile = seatbelt_profile(len(writable), len(protected))
    # /tmp cannot be replaced on macOS: the private dir is offered through $TMPDIR instead.
    unsets = [part for name in unset for part in ("-u", name)]
    return [launcher, "-p", profile, *params, "/usr/bin/env", *unsets, f"TMPDIR={temp_dir}",
            *argv]
