"""saikish.tools.sandbox.launcher's decisions without a sandbox (docs/SPEC.md §4.9): which paths are
protected, what git's config says, which variables pass, what the mounts show, which wall
a failure names, and how stand-ins are shared and removed. Real files and real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from saikish.tools.sandbox.environment import PASSED, sandbox_environment
from saikish.tools.sandbox.fixes import USERNS, fix_for
from saikish.tools.sandbox.gitconfig import parse, read_config
from saikish.tools.sandbox.layout import Files, Mount, Op, Scene, plan, seen, shows
from saikish.tools.sandbox.placeholders import MARK_TIME, Placeholders, is_stand_in
from saikish.tools.sandbox.protected import Kind, nested_repos, protected, protected_paths
from saikish.tools.sandbox.walls import View, Wall, walls_hit


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


# --- protected_paths -----------------------------------------------------------------

def test_the_root_names_are_protected_whether_or_not_they_exist(ws: Path) -> None:
    root = os.path.realpath(ws)
    assert protected_paths(str(ws)) == tuple(
        f"{root}/{name}" for name in (".git", ".saikish", "agent.yml"))


@pytest.mark.parametrize(("where", "value", "expected"), [
    ("repo", ".husky", "{ws}/.husky"),  # relative: to the top of the worktree
    ("repo", "~/hooks", "{home}/hooks"),
    ("global", "tools/hooks", "{ws}/tools/hooks"),  # the person's global config counts too
    ("include", ".githooks", "{ws}/.githooks"),  # through include.path
])
def test_the_hooks_directory_is_found_in_any_config(ws: Path, where: str, value: str,
                                                    expected: str) -> None:
    git("init", "-q", cwd=ws)
    home = Path(os.environ["HOME"])
    if where == "repo":
        git("config", "core.hooksPath", value, cwd=ws)
    elif where == "global":
        (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {value}\n")
    else:
        (ws / "extra.inc").write_text(f"[core]\n\thooksPath = {value}\n")
        git("config", "include.path", "../extra.inc", cwd=ws)
    found = {g.path: g.kind for g in protected(str(ws))}
    path = expected.format(ws=os.path.realpath(ws), home=os.path.realpath(home))
    assert found.get(path) is Kind.HOOKS


def test_a_git_file_brings_its_gitdir_and_common_dir(ws: Path, tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git("init", "-q", cwd=main)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
        "-m", "x", cwd=main)
    tree = tmp_path / "tree"
    git("worktree", "add", "-q", str(tree), cwd=main)
    found = protected_paths(str(tree))
    assert f"{main}/.git/worktrees/tree" in found and f"{main}/.git" in found
    assert f"{tree}/.git" in found


def test_nested_repositories_are_found_but_not_in_dependencies(ws: Path) -> None:
    for path in ("lib/inner", "deep/a/b/c/d/e", "node_modules/pkg", ".venv/src/x"):
        git("init", "-q", path, cwd=ws)
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")  # a submodule
    found = protected_paths(str(ws))
    root = os.path.realpath(ws)
    for path in ("lib/inner/.git", "deep/a/b/c/d/e/.git", "sub/.git", ".git/modules/sub"):
        assert f"{root}/{path}" in found, path
    assert not any("node_modules" in p or ".venv" in p for p in found)


def test_the_walk_for_nested_repositories_is_bounded(ws: Path) -> None:
    for index in range(30):
        (ws / f"d{index:02}").mkdir()
    git("init", "-q", "d29/repo", cwd=ws)
    assert [r.worktree for r in nested_repos(str(ws))] == [f"{ws}/d29/repo"]
    assert nested_repos(str(ws), max_dirs=20) == [], "stops after 20 directories"
    assert nested_repos(str(ws), max_depth=1) == [], "d29/repo is two levels down"


def test_a_workspace_inside_a_repository_protects_the_repository(ws: Path) -> None:
    git("init", "-q", cwd=ws)
    (ws / "sub").mkdir()
    assert f"{os.path.realpath(ws)}/.git" in protected_paths(str(ws / "sub"))


def test_a_linked_agent_yml_protects_both_ends(ws: Path) -> None:
    (ws / "conf").mkdir()
    (ws / "conf" / "agent.yml").write_text("{}\n")
    (ws / "agent.yml").symlink_to("conf/agent.yml")
    found = protected_paths(str(ws))
    assert f"{ws}/agent.yml" in found and f"{ws}/conf/agent.yml" in found


# --- git config ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("[core]\n\thooksPath = .husky\n", [("core.hookspath", ".husky")]),
    ("[core] hooksPath = x # note\n", [("core.hookspath", "x")]),
    ('[user]\n\tname = "A \\"B\\"" ; c\n', [("user.name", 'A "B"')]),
    ('[includeIf "gitdir:~/w/"]\n\tpath = ~/x\n', [("includeif.gitdir:~/w/.path", "~/x")]),
    ("[core]\n\tbare\n", [("core.bare", "true")]),
    ("[core]\n\tfsmonitor = a \\\n b\n", [("core.fsmonitor", "a  b")]),
    ("key = outside any section\n[ok]\n\tv = 1\n", [("ok.v", "1")]),
])
def test_git_config_text_is_read_as_git_reads_it(text: str,
                                                 expected: list[tuple[str, str]]) -> None:
    assert list(parse(text)) == expected


def test_includes_are_followed_and_a_loop_ends(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("[include]\n\tpath = b\n[core]\n\thooksPath = one\n")
    (tmp_path / "b").write_text("[include]\n\tpath = a\n[core]\n\thooksPath = two\n")
    values = {e.value for e in read_config(str(tmp_path / "a"), str(tmp_path))
              if e.key == "core.hookspath"}
    assert values == {"one", "two"}


# --- the environment -------------------------------------------------------------------

def test_only_allowed_names_pass_and_secret_values_never() -> None:
    source = {"PATH": "/usr/bin", "LC_ALL": "C", "PGPASSWORD": "x", "DATABASE_URL": "x",
              "AWS_SECRET_ACCESS_KEY": "x", "SSH_AUTH_SOCK": "x", "OPENAI_API_KEY": "k",
              "GOPATH": "k", "VIRTUAL_ENV": "mine", "GIT_SSH_COMMAND": "x"}
    env = sandbox_environment(source, "/home/me", secrets=["mine"])
    assert {k: v for k, v in env.items() if not k.startswith("GIT_CONFIG")} == {
        "PATH": "/usr/bin", "LC_ALL": "C", "HOME": "/home/me", "TMPDIR": "/tmp"}
    assert env["GIT_CONFIG_KEY_1"] == "core.fsmonitor" and env["GIT_CONFIG_VALUE_1"] == "false"


def test_every_passed_name_says_why() -> None:
    assert all(why and name.isupper() for name, why in PASSED)
    assert not any(word in name for name, _ in PASSED
                   for word in ("KEY", "TOKEN", "SECRET", "PASS", "AUTH", "PROXY", "URL"))


# --- the mounts ------------------------------------------------------------------------

def test_shows_follows_the_last_mount_over_a_path() -> None:
    mounts = (Mount(Op.RO_BIND, "/", "/"), Mount(Op.TMPFS, "/home"),
              Mount(Op.RO_BIND, "/home/me/.cargo", "/home/me/.cargo"),
              Mount(Op.BIND, "/tmp", "/private"), Mount(Op.RO_BIND, "/etc/shadow", "/empty"))
    assert shows(mounts, "/usr/bin/git") and shows(mounts, "/home/me/.cargo/bin/x")
    assert not shows(mounts, "/home/me/.ssh/id_rsa") and not shows(mounts, "/home")
    assert not shows(mounts, "/tmp/x") and not shows(mounts, "/etc/shadow")
    farm = (*mounts, Mount(Op.RO_BIND, "/etc", "/farm"), Mount(Op.RO_BIND, "/etc/.host", "/etc"))
    assert seen(farm, "/etc/.host/shadow") == "/etc/shadow", "where the host's /etc is seen"
    assert seen(farm, "/etc/passwd") == "/farm/passwd" and seen(farm, "/home/x") is None


def test_the_plan_hides_the_home_and_covers_what_shows_through(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "home" / "ws"
    for path in (home / ".ssh", home / ".cargo", ws / ".aws"):
        path.mkdir(parents=True)
    (home / ".cargo" / "credentials.toml").write_text("t")
    files = Files(str(tmp_path / "files" / "e"), str(tmp_path / "files" / "d"), "/g1", "/g2",
                  None)
    mounts = plan(Scene(str(ws), True, str(tmp_path / "t"), str(home), str(tmp_path / "h"),
                        files))
    assert not shows(mounts, f"{home}/.ssh"), "the home is a fresh one"
    assert shows(mounts, f"{home}/.cargo") and shows(mounts, str(ws))
    assert not shows(mounts, f"{home}/.cargo/credentials.toml"), "covered in a toolchain"
    assert Mount(Op.RO_BIND, f"{ws}/.aws", files.empty_dir) in mounts, \
        "a secret store in the workspace is covered by an empty directory"


# --- walls -----------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "walls"), [
    ("fatal: Unable to create '/w/.git/index.lock': Read-only file system", [Wall.PROTECTED]),
    ("mv: cannot move '.git' to 'x': Device or resource busy", [Wall.PROTECTED]),
    ("bash: agent.yml: Is a directory", [Wall.PROTECTED]),
    ("mkdir: cannot create directory ‘.saikish/r’: Read-only file system", [Wall.PROTECTED]),
    ("touch: cannot touch '/var/x': Read-only file system", [Wall.WRITE]),
    ("cat: {home}/.ssh/id_rsa: No such file or directory", [Wall.HIDDEN]),
    ("cat: {home}/never-there: No such file or directory", []),  # missing on the host too
    ("curl: (7) Couldn't connect to server", [Wall.NETWORK]),
    ("mkdir: cannot create directory 'new': File exists", []),  # not a protected path
])
def test_each_failure_names_its_wall(tmp_path: Path, line: str, walls: list[Wall]) -> None:
    home = tmp_path / "h"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    view = View("/w", True, ("/w/.git", "/w/agent.yml", "/w/.saikish"), str(home),
                (Mount(Op.RO_BIND, "/", "/"), Mount(Op.TMPFS, str(home))))
    assert [wall for wall, _ in walls_hit(line.format(home=home), view)] == walls


# --- stand-ins ---------------------------------------------------------------------------

def test_stand_ins_are_shared_and_the_last_one_out_removes_them(ws: Path) -> None:
    first, second = Placeholders(), Placeholders()
    first.add([f"{ws}/.git", f"{ws}/agent.yml", f"{ws}/.config/hooks"], str(ws))
    second.add([f"{ws}/.git"], str(ws))
    assert sorted(os.listdir(ws)) == [".config", ".git", "agent.yml"]
    assert all(is_stand_in(ws / name) for name in os.listdir(ws))
    assert int((ws / ".git").stat().st_mtime) == MARK_TIME
    first.close()
    assert os.listdir(ws) == [".git"], "the other session still holds .git"
    second.close()
    assert os.listdir(ws) == []


def test_a_stand_in_left_by_a_crash_is_taken_over_and_the_persons_dirs_are_not(
        ws: Path) -> None:
    (ws / ".git").mkdir()
    os.utime(ws / ".git", (MARK_TIME, MARK_TIME))  # what a killed session leaves
    (ws / ".saikish").mkdir()  # the person's own, empty
    held = Placeholders()
    held.add([f"{ws}/.git", f"{ws}/.saikish"], str(ws))
    assert held.paths == (f"{ws}/.git",)
    held.close()
    assert os.listdir(ws) == [".saikish"]


def test_a_fix_is_offered_for_known_bwrap_errors() -> None:
    assert fix_for("bwrap: setting up uid map: Permission denied") == USERNS
    assert fix_for("bwrap: Creating new namespace failed: Operation not permitted") == USERNS
    masked = fix_for("bwrap: Can't mount proc on /newroot/proc: Operation not permitted")
    assert masked is not None and "systempaths=unconfined" in masked, "the specific one wins"
    assert fix_for("something else") is None
