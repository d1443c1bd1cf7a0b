"""The files saikish writes for a sandbox (docs/SPEC.md §4.9): empty stand-ins to cover
secrets with, git's system and global config with the guards, and /etc as a farm of links
when the host has no /etc/gitconfig to cover (a read-only /etc has nowhere to mount one):
the host's /etc is then mounted at HOST_ETC, inside the farm, and each of its entries is a
link there (or the same link as on the host), but for the generated gitconfig."""

from __future__ import annotations

import os

from saikish.tools.sandbox.gitconfig import (
    global_config,
    global_config_files,
    identity,
    system_config,
)
from saikish.tools.sandbox.layout import HOST_ETC, Files

HOST_GITCONFIG = "/etc/gitconfig"


def prepare(directory: str, home: str, xdg_config_home: str | None = None,
            host_etc: str = "/etc") -> Files:
    """Write the files into `directory` (private to the session) and say where they are."""
    host_gitconfig = os.path.join(host_etc, "gitconfig")
    try:
        with open(host_gitconfig, encoding="utf-8", errors="replace") as handle:
            host_text: str | None = handle.read(1_000_000)
    except OSError:
        host_text = None
    files = Files(
        empty_file=_write(directory, "empty", ""),
        empty_dir=os.path.join(directory, "empty.d"),
        system_gitconfig=_write(directory, "gitconfig", system_config(host_text or "")),
        global_gitconfig=_write(directory, "home-gitconfig", global_config(
            identity(global_config_files(home, xdg_config_home), home))),
        etc_farm=None if host_text is not None else _farm(directory, host_etc),
    )
    os.makedirs(files.empty_dir, exist_ok=True)
    os.chmod(files.empty_dir, 0o555)
    return files


def _write(directory: str, name: str, text: str) -> str:
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, 0o444)
    return path


def _farm(directory: str, host_etc: str) -> str:
    """/etc for the sandbox: a link to HOST_ETC/NAME for each entry of the host's /etc (its
    own links copied as they are), and the gitconfig as a real file."""
    farm = os.path.join(directory, "etc")
    os.makedirs(os.path.join(farm, os.path.basename(HOST_ETC)), exist_ok=True)
    for entry in os.scandir(host_etc):
        if entry.name == os.path.basename(HOST_ETC):
            continue
        target = os.readlink(entry.path) if entry.is_symlink() else \
            os.path.join(HOST_ETC, entry.name)
        os.symlink(target, os.path.join(farm, entry.name))
    with open(os.path.join(directory, "gitconfig"), encoding="utf-8") as handle:
        _write(farm, "gitconfig", handle.read())  # a copy: the directory is not seen inside
    return farm
