"""Git metadata, agent.yml and .saikish/ inside the sandbox (docs/SPEC.md §4.9): read-only,
and impossible to rename, replace or create, so that nothing run unasked can leave a hook or
an fsmonitor command that runs the next time the person uses git. Each attack asserts the
errno that stopped it, the wall the model is told, and an unchanged host tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saikish.tools.sandbox.generated import prepare
from saikish.tools.sandbox.layout import Scene, bwrap_args, plan
from saikish.tools.sandbox.placeholders import MARK_TIME
from saikish.tools.sandbox.state import NAMESPACE_OPTIONS
from tests.sandbox.test_sandbox_walls import GIT_WALL, Box, git, home, open_box, tree

__all__ = ["home", "open_box"]  # fixtures, used by name

BUSY, READ_ONLY, EXISTS, IS_DIR = ("Device or resource busy", "Read-only file system",
                                   "File exists", "Is a directory")


@pytest.fixture
def repo(ws: Path) -> Path:
    git("init", "-q", cwd=ws)
    (ws / "README").write_text("hi\n")
    return ws


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="saikish-git-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def attack(box: Box, command: str, errno: str) -> None:
    """`command` fails with `errno`, the model is told it hit git's wall, nothing changed."""
    before = tree(box.ws)
    text, note = box.run(command)
    assert errno in text, text
    assert GIT_WALL in note, text
    assert tree(box.ws) == before


@pytest.mark.parametrize(("command", "errno"), [
    ("mv .git x", BUSY),  # .git is a mount point: it cannot be renamed away...
    ("rm -rf .git", READ_ONLY),  # ...nor emptied and removed
    ("mv .git/config .git/c", READ_ONLY),
    ("git config core.fsmonitor 'touch pwned'", READ_ONLY),
    ("echo 'touch pwned' > .git/hooks/post-checkout", READ_ONLY),
    ("ln -sfn /tmp .git/hooks", READ_ONLY),
    ("git add README", READ_ONLY),
])
def test_the_repositorys_git_metadata_cannot_be_changed(
        repo: Path, open_box: Callable[..., Box], command: str, errno: str) -> None:
    attack(open_box(), command, errno)


@pytest.mark.parametrize(("command", "errno"), [
    ("mkdir .git", EXISTS),
    ("git init", READ_ONLY),
    ("ln -s /tmp/elsewhere .git", READ_ONLY),  # made in .git/, which is the stand-in
    ("printf 'gitdir: /tmp/x\\n' > .git", IS_DIR),
    ("mkdir -p .git/hooks", READ_ONLY),
    ("rmdir .git && mkdir .git", BUSY),
])
def test_a_git_that_does_not_exist_cannot_be_created(
        ws: Path, open_box: Callable[..., Box], command: str, errno: str) -> None:
    box = open_box()
    attack(box, command, errno)
    stand_in = ws / ".git"
    assert stand_in.is_dir() and not any(stand_in.iterdir())
    assert int(stand_in.stat().st_mtime) == MARK_TIME, "a dated stand-in, while the box lives"
    box.setup.close()
    assert not stand_in.exists(), "the stand-in goes with the session"


@pytest.mark.parametrize(("name", "present", "command", "errno"), [
    ("agent.yml", False, "echo 'permissions: {allow: [\"Bash(*)\"]}' > agent.yml", IS_DIR),
    ("agent.yml", False, "rm -rf agent.yml", BUSY),  # the stand-in is a mount point
    ("agent.yml", True, "echo 'permissions: {allow: [\"Bash(*)\"]}' >> agent.yml", READ_ONLY),
    ("agent.yml", True, "mv agent.yml gone", BUSY),
    ("agent.yml", True, "rm -f agent.yml", BUSY),
    (".saikish", False, "mkdir -p .saikish/rules", READ_ONLY),
    (".saikish", False, "rm -rf .saikish", BUSY),
    (".saikish", True, "touch .saikish/x", READ_ONLY),
    (".saikish", True, "mv .saikish gone", BUSY),
])
def test_saikish_config_cannot_be_written_present_or_not(
        ws: Path, open_box: Callable[..., Box], name: str, present: bool, command: str,
        errno: str) -> None:
    if present and name == "agent.yml":
        (ws / name).write_text("sandbox: auto\n")
    elif present:
        (ws / name).mkdir()
    box = open_box()
    attack(box, command, errno)
    box.setup.close()
    assert (ws / name).exists() is present, "the host is as it was"


def test_a_protected_name_that_is_a_link_cannot_be_renamed_away(
        ws: Path, open_box: Callable[..., Box]) -> None:
    """A mount cannot sit on a symbolic link (it follows it): the link `agent.yml` could be
    renamed and a new agent.yml made. So the directory holding it keeps its names."""
    (ws / "conf").mkdir()
    (ws / "conf" / "agent.yml").write_text("sandbox: auto\n")
    (ws / "agent.yml").symlink_to("conf/agent.yml")
    box = open_box()
    attack(box, "mv agent.yml moved && echo evil > agent.yml", READ_ONLY)
    attack(box, "echo evil >> agent.yml", READ_ONLY)  # through the link: the target is too
    text, _ = box.run("echo fine > conf/other && cat conf/other")
    assert text == "fine\n[exit code 0]", "what is in the directory stays writable"
    _, note = box.run("touch new-at-the-top")
    assert GIT_WALL in note, "a new name there is refused, and said so"


@pytest.mark.parametrize("exists", [False, True])
def test_the_hooks_directory_core_hookspath_names_is_protected(
        repo: Path, open_box: Callable[..., Box], exists: bool) -> None:
    git("config", "core.hooksPath", ".husky", cwd=repo)
    if exists:
        (repo / ".husky").mkdir()
    box = open_box()
    attack(box, "mkdir -p .husky; echo 'touch pwned' > .husky/pre-commit", READ_ONLY)


def test_a_git_file_and_the_metadata_it_names_are_protected(
        ws: Path, outside: Path, open_box: Callable[..., Box]) -> None:
    main = outside / "main"
    main.mkdir()
    git("init", "-q", cwd=main)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m",
        "first", cwd=main)
    shutil.rmtree(ws)
    git("worktree", "add", "-q", str(ws), cwd=main)
    assert (ws / ".git").is_file()
    box = open_box()
    text, _ = box.run("git log --format=%s")
    assert text.startswith("first\n"), "git works inside, reading the metadata elsewhere"
    attack(box, "printf 'gitdir: /tmp/evil\\n' > .git", READ_ONLY)
    attack(box, "mv .git x", BUSY)
    before = tree(main / ".git")
    for command in ("echo evil >> \"$(git rev-parse --git-dir)/HEAD\"",
                    "git config core.fsmonitor 'touch pwned'"):  # the common dir's config
        text, note = box.run(command)
        assert READ_ONLY in text and GIT_WALL in note
    assert tree(main / ".git") == before


def test_a_nested_repository_is_protected(repo: Path, open_box: Callable[..., Box]) -> None:
    git("init", "-q", "lib/inner", cwd=repo)
    attack(open_box(), "mv lib/inner/.git lib/inner/x", BUSY)


def test_git_status_does_not_run_the_repositorys_fsmonitor(
        repo: Path, open_box: Callable[..., Box]) -> None:
    git("config", "core.fsmonitor", f"touch {repo}/fsmonitor-ran; false", cwd=repo)
    text, _ = open_box().run("git status --short")
    assert "README" in text and not (repo / "fsmonitor-ran").exists(), \
        "GIT_CONFIG_* sets core.fsmonitor=false, which outranks the repository's config"


# What holds when a command clears or trims the environment. A bare repository laid out as
# plain files (`git -C b ...` would read its config) must be named to be used:
@pytest.mark.parametrize(("prefix", "refused", "why"), [
    ("", True, "GIT_CONFIG_* in the environment"),
    ("env -i /usr/bin/", True, "the sandbox's /etc/gitconfig (no variable needed)"),
    ("env GIT_CONFIG_NOSYSTEM=1 ", True, "the sandbox's ~/.gitconfig (HOME still set)"),
    ("env -i GIT_CONFIG_NOSYSTEM=1 /usr/bin/", False,
     "nothing: no variable, no system file, no HOME; the command asked for it, and git "
     "runs inside the sandbox like any other program it could have run"),
])
def test_what_guards_git_when_the_environment_is_cleared(
        ws: Path, open_box: Callable[..., Box], prefix: str, refused: bool, why: str) -> None:
    git("init", "-q", "--bare", "b", cwd=ws)
    text, _ = open_box().run(f"{prefix}git -C b rev-parse --git-dir")
    assert ("cannot use bare repository" in text) is refused, why


def test_the_repositorys_own_fsmonitor_runs_inside_when_the_environment_is_cleared(
        repo: Path, outside: Path, open_box: Callable[..., Box]) -> None:
    """A repository's own .git/config outranks every config file: under `env -i` git runs
    the fsmonitor it names, inside the sandbox; it cannot have been put there from inside
    (.git is read-only), and what it runs is contained like any command."""
    git("config", "core.fsmonitor", f"touch {repo}/ran {outside}/escaped; false", cwd=repo)
    open_box().run("env -i /usr/bin/git status --short")
    assert (repo / "ran").exists() and not (outside / "escaped").exists()


def test_without_a_host_gitconfig_etc_is_a_farm_that_carries_the_guards(
        ws: Path, tmp_path: Path, open_box: Callable[..., Box]) -> None:
    """A read-only /etc has nowhere to mount a gitconfig the host does not have: /etc is
    then a farm of links to the host's /etc (seen at /etc/.host) plus the generated file."""
    open_box()  # bwrap runs here
    host_etc = tmp_path / "host-etc"  # names the farm links; the links reach the real /etc
    host_etc.mkdir()
    (host_etc / "passwd").write_text("")
    (host_etc / "localtime").symlink_to("/usr/share/zoneinfo/UTC")
    (tmp_path / "files").mkdir()
    files = prepare(str(tmp_path / "files"), str(tmp_path), host_etc=str(host_etc))
    assert files.etc_farm is not None
    mounts = plan(Scene(str(ws), True, str(tmp_path), os.path.expanduser("~"), str(tmp_path),
                        files))
    script = ("grep -c bareRepository /etc/gitconfig; head -c 5 /etc/passwd; echo; "
              "readlink /etc/localtime; wc -c < /etc/.host/shadow; ls /run")
    done = subprocess.run(["bwrap", *bwrap_args(mounts), *NAMESPACE_OPTIONS, "--", "sh", "-c",
                           script], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:5] == ["1", "root:", "/usr/share/zoneinfo/UTC", "0", ""], \
        "the guards, the host's files through the links, its own links as they were, " \
        "/etc/shadow still covered, and /run still empty"


def test_a_commit_fails_with_the_wall_and_the_persons_identity_works_elsewhere(
        home: Path, repo: Path, open_box: Callable[..., Box]) -> None:
    box = open_box()
    text, note = box.run("git commit -q --allow-empty -m x")
    assert f"Unable to create '{repo}/.git/index.lock': Read-only file system" in text
    assert GIT_WALL in note and '"outside_sandbox": true' in note
    text, _ = box.run("cd /tmp && git init -q r && cd r && git commit -q --allow-empty -m x "
                      "&& git log --format=%an; cat ~/.gitconfig")
    assert text.startswith("Test Person\n"), "the identity is copied from ~/.gitconfig"
    assert "tok-secret" not in text, "nothing else of the person's config: it may hold tokens"


def test_the_toolchain_still_works(repo: Path, open_box: Callable[..., Box]) -> None:
    text, _ = open_box().run("python3 -c 'print(6 * 7)' && git status --short && "
                             "echo built > out.txt && cat out.txt")
    assert text == "42\n?? README\nbuilt\n[exit code 0]"
    assert (repo / "out.txt").read_text() == "built\n"


def test_a_stand_in_the_person_filled_is_left_alone(ws: Path,
                                                   open_box: Callable[..., Box]) -> None:
    box = open_box()
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)  # the person, outside
    box.setup.close()
    assert (ws / ".git" / "HEAD").exists(), "only an empty, dated stand-in is removed"
    assert os.listdir(ws) == [".git"]
