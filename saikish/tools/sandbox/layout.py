"""What a sandboxed command sees of the file system: the mounts, as data (docs/SPEC.md §4.9).

Everything outside the home stays readable (a toolchain needs /usr, /etc, /opt, /nix);
the homes (/home, /root), /run and /tmp are replaced by empty or private directories, and
$HOME by the session's own private directory, into which go, read-only, the toolchain
directories of HOME_TOOLCHAINS that exist. The workspace is then mounted at its real path
(writable, or read-only), its protected paths read-only onto themselves, and last every
secret store of SECRET_STORES and SYSTEM_SECRETS and every Unix socket of the host that
would still be visible is covered by an empty read-only file or directory. `plan` builds
the list; `bwrap_args` spells it for bubblewrap; `seen` says which host path is seen at a
path inside.
"""

from __future__ import annotations

import enum
import glob
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Read-only in the fresh home when they exist: toolchains and the caches they read.
# Whole ~/.cache is not here: it holds tokens too (huggingface/token).
HOME_TOOLCHAINS: tuple[tuple[str, str], ...] = (
    (".cargo", "Rust: cargo, installed binaries, the registry"),
    (".rustup", "Rust toolchains"),
    (".pyenv", "pyenv's Pythons"),
    (".local/bin", "binaries pip, pipx and uv install"),
    (".local/lib", "pip --user packages"),
    (".local/share/uv", "uv's Pythons and tools"),
    (".local/share/pipx", "pipx's environments"),
    (".local/share/pnpm", "pnpm's store and binaries"),
    (".local/share/mise", "mise's tools"),
    (".cache/pip", "pip's cache"),
    (".cache/uv", "uv's cache"),
    (".cache/pypoetry", "Poetry's cache and environments"),
    (".cache/go-build", "Go's build cache"),
    (".cache/yarn", "Yarn's cache"),
    (".cache/node-gyp", "Node headers for native modules"),
    (".cache/ms-playwright", "Playwright's browsers"),
    (".cache/pre-commit", "pre-commit's environments"),
    (".npm", "npm's cache"),
    (".nvm", "nvm's Node versions"),
    (".volta", "Volta's tools"),
    (".bun", "Bun"),
    (".deno", "Deno"),
    ("go", "GOPATH: modules and binaries"),
    (".m2", "Maven's repository (settings.xml is hidden)"),
    (".gradle", "Gradle's caches (gradle.properties is hidden)"),
    (".sdkman", "SDKMAN's JDKs"),
    (".asdf", "asdf's tools"),
    (".rbenv", "rbenv's Rubies"),
    (".gem", "Ruby gems (credentials is hidden)"),
    (".nix-profile", "Nix's profile"),
    (".ghcup", "Haskell toolchains"),
    (".elan", "Lean toolchains"),
    (".opam", "OCaml switches"),
    (".dotnet", ".NET SDKs and tools"),
    (".nuget/packages", "NuGet's packages (not its config)"),
    (".conda", "conda's environments"),
    ("miniconda3", "Miniconda"),
    ("anaconda3", "Anaconda"),
    ("miniforge3", "Miniforge"),
)
# Toolchains that live under /home but belong to no person.
SHARED_TOOLCHAINS = ("/home/linuxbrew/.linuxbrew",)
# Never visible, wherever they are (inside a toolchain directory, or a workspace that is
# the home): keys, tokens, passwords, shell histories, saikish's own files.
SECRET_STORES: tuple[str, ...] = (
    ".ssh", ".aws", ".gnupg", ".netrc", ".docker", ".kube", ".config/gh", ".config/hub",
    ".config/glab-cli", ".git-credentials", ".config/git/credentials", ".config/gcloud",
    ".azure", ".oci", ".npmrc", ".yarnrc.yml", ".pypirc", ".config/pip", ".condarc",
    ".cargo/credentials.toml", ".cargo/credentials", ".m2/settings.xml",
    ".m2/settings-security.xml", ".gradle/gradle.properties", ".gem/credentials",
    ".local/share/uv/credentials", ".terraform.d", ".vault-token", ".pgpass", ".my.cnf",
    ".boto", ".s3cfg", ".password-store", ".local/share/keyrings", ".bash_history",
    ".zsh_history", ".python_history", ".node_repl_history", ".psql_history",
    ".mysql_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history",
    ".config/saikish", ".local/state/saikish",
)
SYSTEM_SECRETS: tuple[str, ...] = (
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh/*key",
    "/etc/ssl/private", "/etc/security/opasswd",
)
# Replaced by an empty directory: other people's homes, root's, the session's sockets.
HIDDEN_ROOTS = ("/home", "/root", "/run", "/var/run")
HOST_ETC = "/etc/.host"  # where the host's /etc is seen when /etc is a farm of links
UNIX_SOCKETS = "/proc/net/unix"


class Op(enum.Enum):
    """A bubblewrap mount operation."""

    RO_BIND = "--ro-bind"
    BIND = "--bind"
    TMPFS = "--tmpfs"
    DIR = "--dir"
    DEV = "--dev"
    PROC = "--proc"


@dataclass(frozen=True)
class Mount:
    """One mount: `source` (a host path, for binds) shown at `dest` inside."""

    op: Op
    dest: str
    source: str = ""


@dataclass(frozen=True)
class Files:
    """What saikish generates for a sandbox, in a directory of its own (read-only inside)."""

    empty_file: str
    empty_dir: str
    system_gitconfig: str
    global_gitconfig: str
    etc_farm: str | None  # /etc as links to HOST_ETC plus the gitconfig, when the host has none


@dataclass(frozen=True)
class Scene:
    """What `plan` needs to know; all paths are real (links resolved)."""

    workspace: str
    writable: bool
    temp_dir: str
    home: str
    home_dir: str  # the session's fresh home on the host, seen at `home` inside
    files: Files
    protected: tuple[str, ...] = ()  # existing protected paths, read-only onto themselves
    # Directories whose names are fixed: one holds a protected name that is a symbolic link,
    # and a mount cannot sit on a link (it would follow it), so the link could be renamed.
    frozen: tuple[str, ...] = ()
    also_visible: tuple[str, ...] = ()  # read-only, wherever they are (the runner's Python)
    also_hidden: tuple[str, ...] = ()  # hidden wherever they are (saikish's config dirs)


def plan(scene: Scene) -> tuple[Mount, ...]:
    """The mounts, in order (a later one covers an earlier one)."""
    mounts = [Mount(Op.RO_BIND, "/", "/"), Mount(Op.DEV, "/dev"), Mount(Op.PROC, "/proc")]
    mounts += _hidden_roots(scene)
    mounts += _etc(scene.files)
    mounts += _fresh_home(scene)
    mounts += [Mount(Op.RO_BIND, path, path) for path in scene.also_visible
               if not shows(mounts, path)]
    workspace_op = Op.BIND if scene.writable else Op.RO_BIND
    mounts.append(Mount(workspace_op, scene.workspace, scene.workspace))
    mounts += [mount for directory in scene.frozen for mount in _frozen(directory)]
    mounts += [Mount(Op.RO_BIND, path, path) for path in scene.protected
               if os.path.lexists(path)]
    secrets = [*_home_secrets(scene.home, scene.workspace), *_system_secrets(scene.files),
               *scene.also_hidden]
    mounts += _covers(mounts, secrets, scene.files)
    mounts += _covers(mounts, host_sockets(), scene.files)
    return tuple(mounts)


def _hidden_roots(scene: Scene) -> list[Mount]:
    roots = [path for path in HIDDEN_ROOTS if os.path.isdir(path) and not os.path.islink(path)]
    mounts = [Mount(Op.TMPFS, path) for path in dict.fromkeys(roots)]
    # After /run and the homes: a workspace or a private /tmp under them is seen again.
    return [*mounts, Mount(Op.BIND, "/tmp", scene.temp_dir)]


def _etc(files: Files) -> list[Mount]:
    """The sandbox's /etc/gitconfig: bound over the host's, or /etc as a farm of links."""
    if files.etc_farm is None:
        return [Mount(Op.RO_BIND, "/etc/gitconfig", files.system_gitconfig)]
    return [Mount(Op.RO_BIND, "/etc", files.etc_farm), Mount(Op.RO_BIND, HOST_ETC, "/etc")]


def _fresh_home(scene: Scene) -> list[Mount]:
    """The session's own home over $HOME (kept by the session, whichever sandbox runs a
    call), with the toolchains and git's generated config in it, read-only."""
    home = scene.home
    if home == "/":
        return []  # HOME=/ is the whole machine: it cannot be replaced
    mounts = [Mount(Op.BIND, home, scene.home_dir)]
    for relative, _ in HOME_TOOLCHAINS:
        path = os.path.join(home, relative)
        if os.path.exists(path):
            mounts.append(Mount(Op.RO_BIND, path, os.path.realpath(path)))
    mounts += [Mount(Op.RO_BIND, path, path) for path in SHARED_TOOLCHAINS
               if os.path.isdir(path)]
    mounts.append(Mount(Op.RO_BIND, os.path.join(home, ".gitconfig"),
                        scene.files.global_gitconfig))
    return mounts


def _frozen(directory: str) -> list[Mount]:
    """`directory` read-only (no name in it can be made, removed or renamed) with each of
    its entries but links writable again."""
    try:
        with os.scandir(directory) as entries:
            inner = sorted(entry.path for entry in entries if not entry.is_symlink())
    except OSError:
        inner = []
    return [Mount(Op.RO_BIND, directory, directory),
            *(Mount(Op.BIND, path, path) for path in inner)]


def _home_secrets(home: str, workspace: str) -> list[str]:
    """The secret stores of the home, and of the workspace when it is a home of its own."""
    bases = dict.fromkeys([home, workspace])
    return [os.path.join(base, relative) for base in bases for relative in SECRET_STORES]


def _system_secrets(files: Files) -> list[str]:
    found = [path for pattern in SYSTEM_SECRETS for path in glob.glob(pattern)]
    if files.etc_farm is not None:  # the host's /etc is seen at HOST_ETC
        found = [HOST_ETC + path[len("/etc"):] if path.startswith("/etc/") else path
                 for path in found]
    return found


def _covers(mounts: Sequence[Mount], paths: Iterable[str], files: Files) -> list[Mount]:
    """An empty read-only stand-in over each of `paths` (and over where a link among them
    points) whose host file is still seen inside."""
    ours = os.path.dirname(files.empty_file) + os.sep
    covers: list[Mount] = []
    for path in dict.fromkeys(paths):
        for inside in dict.fromkeys((path, os.path.realpath(path))):
            host = seen([*mounts, *covers], inside)
            if host is None or host.startswith(ours) or not os.path.exists(host):
                continue
            empty = files.empty_dir if os.path.isdir(host) else files.empty_file
            covers.append(Mount(Op.RO_BIND, inside, empty))
    return covers


def host_sockets(table: str = UNIX_SOCKETS) -> list[str]:
    """The file system paths of the host's Unix sockets (abstract ones live in the network
    namespace, which the sandbox does not share)."""
    try:
        with open(table, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return []
    paths = (line.split(None, 7)[-1] for line in lines if len(line.split(None, 7)) == 8)
    return sorted({path for path in paths if path.startswith("/")})


def seen(mounts: Sequence[Mount], path: str) -> str | None:
    """The host path seen at `path` inside, after the last mount over it (or over a
    directory above it); None where it is a fresh tmpfs, /dev or /proc."""
    for mount in reversed(mounts):
        dest = mount.dest.rstrip("/")
        if path == mount.dest or path.startswith(dest + "/"):
            if mount.op not in (Op.BIND, Op.RO_BIND):
                return None
            return mount.source.rstrip("/") + path[len(dest):] or "/"
    return None


def shows(mounts: Sequence[Mount], path: str) -> bool:
    """True when the host's `path` is what is seen at `path` inside."""
    return seen(mounts, path) == path


def bwrap_args(mounts: Iterable[Mount]) -> list[str]:
    """The mounts as bubblewrap options."""
    args: list[str] = []
    for mount in mounts:
        if mount.op in (Op.BIND, Op.RO_BIND):
            args += [mount.op.value, mount.source, mount.dest]
        else:
            args += [mount.op.value, mount.dest]
    return args
