"""Why bubblewrap cannot start here, and what fixes it (docs/SPEC.md §4.9): said once, in the
banner and /config, beside bwrap's own words."""

from __future__ import annotations

USERNS = ("user namespaces are not allowed here: allow them (sysctl -w "
          "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces=15000; on Ubuntu "
          "24.04 kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for "
          "bwrap), or in a container run it with --security-opt seccomp=unconfined "
          "--security-opt apparmor=unconfined")
# (words of bwrap's error, the fix), the most specific first: the first match wins.
FIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Can't mount proc",),
     "this container masks /proc: run it with --security-opt systempaths=unconfined "
     "(and seccomp=unconfined, apparmor=unconfined), or --privileged"),
    (("Failed RTM_NEWADDR", "loopback:"),
     "the sandbox's loopback cannot be set up (AppArmor, or a container): " + USERNS),
    (("Can't find source path",), "a path the sandbox mounts vanished: start saikish again"),
    (("No permissions to create new namespace", "setting up uid map",
      "Creating new namespace failed", "unshare failed", "Operation not permitted"), USERNS),
)


def fix_for(problem: str) -> str | None:
    """The fix for bwrap's error `problem`, or None when we know of none."""
    for words, fix in FIXES:
        if any(word in problem for word in words):
            return fix
    return None
