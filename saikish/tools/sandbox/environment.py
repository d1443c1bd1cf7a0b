"""The environment a sandboxed command gets: an allowlist of names (docs/SPEC.md §4.9).

A name pattern (KEY, SECRET, TOKEN) let PGPASSWORD, DATABASE_URL and a proxy URL with a
password through; an allowlist cannot miss a name nobody thought of. What is not here
stays outside: credentials (AWS_*, PGPASSWORD, DATABASE_URL, NPM_CONFIG_*, PIP_INDEX_URL,
GOPROXY, BUNDLE_*, HTTP(S)_PROXY may all embed one), sockets to the person's session
(SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR, DISPLAY, WAYLAND_DISPLAY,
DOCKER_HOST, KUBECONFIG), git's own variables (GIT_SSH_COMMAND, GIT_ASKPASS, GIT_DIR...),
and anything that loads code into every program (LD_PRELOAD).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from saikish.tools.sandbox.childenv import child_environment

# Each passed name with the reason it passes: none of them holds a credential by convention.
PASSED: tuple[tuple[str, str], ...] = (
    ("PATH", "finds the programs (entries in a hidden directory simply find nothing)"),
    ("LANG", "text encoding and language of messages"),
    ("LANGUAGE", "language of messages"),
    ("TERM", "how output is formatted"),
    ("COLORTERM", "how output is coloured"),
    ("NO_COLOR", "the person asked for no colour"),
    ("FORCE_COLOR", "the person asked for colour"),
    ("CLICOLOR", "colour in BSD tools"),
    ("USER", "who runs it: some tools name files after it"),
    ("LOGNAME", "the same, for tools that read this one"),
    ("SHELL", "the person's shell, for tools that start one"),
    ("TZ", "times shown in the person's zone"),
    ("CI", "tools stay non-interactive"),
    ("GOPATH", "Go's module and binary tree"),
    ("GOROOT", "Go's toolchain"),
    ("GOBIN", "where Go installs binaries"),
    ("GOMODCACHE", "Go's module cache"),
    ("GOCACHE", "Go's build cache"),
    ("GOFLAGS", "Go's default flags (build options, no credentials)"),
    ("GOTOOLCHAIN", "which Go toolchain runs"),
    ("CGO_ENABLED", "whether Go uses cgo"),
    ("CARGO_HOME", "Cargo's tree (its credentials file is hidden)"),
    ("CARGO_TARGET_DIR", "where Cargo builds"),
    ("RUSTUP_HOME", "rustup's toolchains"),
    ("RUSTUP_TOOLCHAIN", "which Rust toolchain runs"),
    ("RUSTFLAGS", "compiler flags"),
    ("JAVA_HOME", "the JDK"),
    ("MAVEN_HOME", "Maven"),
    ("M2_HOME", "Maven, older name"),
    ("GRADLE_HOME", "Gradle"),
    ("GRADLE_USER_HOME", "Gradle's caches (its gradle.properties is hidden)"),
    ("ANDROID_HOME", "the Android SDK"),
    ("ANDROID_SDK_ROOT", "the Android SDK, older name"),
    ("DOTNET_ROOT", "the .NET SDK"),
    ("VIRTUAL_ENV", "the active Python virtual environment"),
    ("CONDA_PREFIX", "the active conda environment"),
    ("CONDA_DEFAULT_ENV", "its name"),
    ("PYTHONPATH", "where the project's Python imports come from"),
    ("PYTHONDONTWRITEBYTECODE", "no .pyc files"),
    ("PYTHONUNBUFFERED", "unbuffered output"),
    ("PYTHONIOENCODING", "Python's output encoding"),
    ("PYENV_ROOT", "pyenv's versions"),
    ("PYENV_VERSION", "which pyenv version runs"),
    ("NVM_DIR", "nvm's Node versions"),
    ("NVM_BIN", "the active Node's binaries"),
    ("NODE_PATH", "where Node resolves modules"),
    ("NODE_ENV", "development or production"),
    ("VOLTA_HOME", "Volta's tools"),
    ("PNPM_HOME", "pnpm's binaries"),
    ("BUN_INSTALL", "Bun's install"),
    ("DENO_DIR", "Deno's cache"),
    ("DENO_INSTALL", "Deno's install"),
    ("GEM_HOME", "Ruby gems"),
    ("GEM_PATH", "Ruby gems"),
    ("RBENV_ROOT", "rbenv's versions"),
    ("SDKMAN_DIR", "SDKMAN's candidates"),
    ("XDG_CACHE_HOME", "where caches are (uv, pip, go-build): read-only inside"),
    ("XDG_DATA_HOME", "where data is (uv's Pythons, pipx)"),
    ("CC", "the C compiler"),
    ("CXX", "the C++ compiler"),
    ("CFLAGS", "C compiler flags"),
    ("CXXFLAGS", "C++ compiler flags"),
    ("CPPFLAGS", "preprocessor flags"),
    ("LDFLAGS", "linker flags"),
    ("PKG_CONFIG_PATH", "where pkg-config looks"),
    ("LD_LIBRARY_PATH", "libraries of a toolchain installed outside /usr"),
    ("LIBRARY_PATH", "where the linker looks"),
    ("CPATH", "where the compiler looks for headers"),
    ("MAKEFLAGS", "make's flags"),
)
# Whole families that pass: the locale.
PASSED_PREFIXES = ("LC_",)
PASSED_NAMES = frozenset(name for name, _ in PASSED)

# What git is told on its command line level, which outranks every config file, the
# repository's own included (docs/SPEC.md §4.9; the same guards are in files too).
GIT_GUARDS: tuple[tuple[str, str], ...] = (
    ("safe.bareRepository", "explicit"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
)


def passes(name: str) -> bool:
    """True when a variable of this name reaches a sandboxed command."""
    return name in PASSED_NAMES or name.startswith(PASSED_PREFIXES)


def sandbox_environment(source: Mapping[str, str], home: str, temp: str = "/tmp",
                        secrets: Iterable[str] = ()) -> dict[str, str]:
    """The environment of a command inside: the allowed names of `source`, minus any value
    that is one of saikish's keys or `secrets`, with HOME and TMPDIR set and git's guards."""
    kept = child_environment(secrets, source)  # drops saikish's keys by name and by value
    env = {name: value for name, value in kept.items() if passes(name)}
    env["HOME"], env["TMPDIR"] = home, temp
    env["GIT_CONFIG_COUNT"] = str(len(GIT_GUARDS))
    for index, (key, value) in enumerate(GIT_GUARDS):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env
