"""Variables that change which code a command runs (docs/SPEC.md §4.2, §4.7).

A rule for a command's words does not cover a command run with one of these set: the
value can load a library, pick a program, add options or point at a config file that
does. Unknown-to-us variables are harmless by default, so this list errs on the long side.
"""

from __future__ import annotations

HIJACK_VARS = frozenset({
    "PATH", "BASH_ENV", "ENV", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS",
    "HOME", "CDPATH", "TERMINFO", "TERMINFO_DIRS", "SHELL", "GLOBIGNORE",
    "PAGER", "MANPAGER", "MANOPT", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "BROWSER",
    "LESS", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "SSH_ASKPASS", "SUDO_ASKPASS",
    "GZIP", "ZIP", "ZIPOPT", "UNZIP", "UNZIPOPT", "BZIP", "BZIP2", "XZ_OPT", "XZ_DEFAULTS",
    "ZSTD_CLEVEL", "TAR_OPTIONS", "MAKEFLAGS", "MAKEFILES", "MFLAGS", "GNUMAKEFLAGS",
    "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
    "RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC_WRAPPER", "KUBECONFIG", "CURL_HOME", "WGETRC",
    "RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "EXINIT", "VIMINIT", "MYVIMRC", "INPUTRC",
    "GCONV_PATH", "HOSTALIASES", "RESOLV_HOST_CONF", "LOCPATH", "NLSPATH", "TZDIR",
    "OPENSSL_CONF", "OPENSSL_ENGINES", "GIT_DIR", "MAIL", "BASH_XTRACEFD",
    "AUTOM4TE", "AUTOCONF", "AUTOHEADER", "AUTOMAKE", "ACLOCAL", "AUTOPOINT", "LIBTOOLIZE",
    "GTKDOCIZE", "M4", "M4PATH", "TEXINPUTS", "PRYRC", "TASKRC", "TASKDATA",
    "ACKRC", "AWKPATH", "AWKLIBPATH", "BAT_PAGER", "BAT_CONFIG_PATH", "TAPE", "LZOP",
    "GREP_COLORS", "SUDO_EDITOR", "GIT_EDITOR", "FCEDIT", "LESSSECURE", "TMOUT",
    "FACTERLIB", "CRASHPAGER", "LIBVIRT_DEFAULT_URI", "ZDOTDIR", "VIRTUAL_ENV",
    "SSLKEYLOGFILE", "KSH_ENV",
})
HIJACK_PREFIXES = (
    "GIT_", "LD_", "DYLD_", "BASH_FUNC_", "NPM_CONFIG_", "npm_config_", "YARN_", "PNPM_",
    "BUN_", "PIP_", "UV_", "POETRY_", "PDM_", "HATCH_", "CONDA", "PYTHON", "PYTEST_",
    "TOX_", "NOX_", "PERL", "RUBY", "GEM_", "BUNDLE_", "NODE_", "DENO_", "JAVA", "_JAVA",
    "MAVEN_", "GRADLE_", "CARGO_", "RUSTC", "RUSTUP_", "GO", "CGO_", "DOCKER_", "KUBE",
    "HELM_", "SSH_", "GNUPG", "GPG_", "XDG_", "LUA_", "PHP_", "COMPOSER_", "R_", "JULIA_",
    "GROFF_", "CUPS_", "TEXMF", "FZF_", "CODEX_", "OPENCODE_",
    "CLASSPATH", "DOTNET_", "NUGET_", "ANSIBLE_", "TF_", "AWS_CONFIG", "CLOUDSDK_",
    "RSYNC_", "SVN_", "HG", "CVS_RSH", "P4", "RESTIC_", "BORG_", "VAGRANT_", "PUPPET_",
    "CHEF_", "ANSIBLE", "VIRSH_", "MOSQUITTO_",
)


def is_hijack_var(name: str) -> bool:
    """True for a variable whose value changes which code runs."""
    return (name in HIJACK_VARS or name.startswith(HIJACK_PREFIXES)
            or name.endswith(("_OPTIONS", "_OPTS", "FLAGS")))
