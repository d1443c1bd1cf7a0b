"""Quiet matters as much as safe (docs/SPEC.md §4.1, §4.3, §4.7): everyday work runs unasked.

Two tables: read-only commands models run every day, which cautious autonomy must allow
with no rules at all; and commands a named rule must cover. Each row says why.

Rows marked xfail(strict) with "QUIET:" are asked today although they should not be: a
quiet-ness defect. The coordinator removes the mark when the engine is fixed.
"""

from __future__ import annotations

import pytest

from saikish.engine.policy import Context, RuleSet
from saikish.engine.tiers import Containment
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Source, Tier, Verdict
from tests.support.attacks import assess, explain

WORKSPACE = "/srv/project"


def context(allow: list[object] | None = None,
            autonomy: Autonomy = Autonomy.CAUTIOUS) -> Context:
    """No rules (or only `allow`), the two deny rules people write, under `autonomy`."""
    deny = ("Bash(git push --force *)", "Bash(rm -rf *)")
    rules = RuleSet(config_allow=tuple(parse_rule(r, "test") for r in allow or []),
                    config_deny=tuple(parse_rule(r, "test") for r in deny))
    return Context(builtin_tools(), rules, autonomy, workspace=WORKSPACE)




def quiet(command: str, why: str, defect: str | None = None) -> object:
    """A row; `defect` is the reason the engine asks today (xfail strict until fixed)."""
    marks = [pytest.mark.xfail(strict=True, reason=f"QUIET: {defect}")] if defect else []
    return pytest.param(command, why, marks=marks, id=command[:60])


READ_ONLY = [
    quiet("git status", "the work tree's state"),
    quiet("git status -sb", "short form with the branch"),
    quiet("git status --porcelain", "machine-readable status"),
    quiet("git log --oneline -5", "the last five commits"),
    quiet("git log --oneline -n 20 --graph --decorate", "a history graph"),
    quiet("git log -p -1 -- src/app.py", "the last change to one file"),
    quiet("git log --stat --since=2.weeks", "recent history with stats"),
    quiet("git log --author=alice --format='%h %s'", "one author's commits"),
    quiet("git log -p --textconv -- doc.pdf",
          "textconv is git log's default; its programs come only from git configuration, "
          "which a cloned repository cannot plant (writing .git/config is itself asked)"),
    quiet("git diff", "unstaged changes"),
    quiet("git diff HEAD~1 -- src", "the last commit's changes under src"),
    quiet("git diff --stat", "a diff summary"),
    quiet("git diff --cached", "staged changes"),
    quiet("git diff --name-only main...HEAD", "files changed on the branch"),
    quiet("git show HEAD", "the last commit"),
    quiet("git show --stat HEAD~2", "an older commit's stats"),
    quiet("git show HEAD:README.md", "a file at a revision"),
    quiet("git branch --list", "local branches"),
    quiet("git branch -a", "all branches"),
    quiet("git branch -vv", "branches with upstreams"),
    quiet("git tag -l", "tags"),
    quiet("git tag --list 'v1.*'", "tags matching a pattern"),
    quiet("git remote -v", "remotes"),
    quiet("git rev-parse HEAD", "the current commit"),
    quiet("git rev-parse --abbrev-ref HEAD", "the current branch"),
    quiet("git rev-parse --show-toplevel", "the repository root"),
    quiet("git blame -L 10,20 src/app.py", "who wrote some lines"),
    quiet("git shortlog -sn", "commit counts per author"),
    quiet("git ls-files", "tracked files"),
    quiet("git ls-files '*.py'", "tracked Python files"),
    quiet("git grep -n TODO", "search tracked files"),
    quiet("git describe --tags", "the nearest tag"),
    quiet("git stash list", "stashes"),
    quiet("git config --get user.name", "one config value"),
    quiet("git reflog -10", "recent ref moves"),
    quiet("git merge-base HEAD main", "a common ancestor"),
    quiet("git cat-file -p HEAD", "a raw object"),
    quiet("git --no-pager log -3", "log without a pager"),
    quiet("git -C . status", "status, the directory named"),
    quiet("git -P diff", "diff without a pager"),
    quiet("git log --oneline | head -20", "history through head"),
    quiet("tar -tzf a.tgz", "list an archive"),
    quiet("tar tf a.tar", "list an archive, bundled options"),
    quiet("tar -tvf a.tar | head", "list an archive verbosely"),
    quiet("unzip -l a.zip", "list a zip"),
    quiet("unzip -p a.zip README | head", "print one member to stdout"),
    quiet("zipinfo a.zip", "list a zip"),
    quiet("gzip -l a.gz", "list a gzip file"),
    quiet("zcat a.gz | head", "read a compressed file"),
    quiet("ls -la src", "list a directory"),
    quiet("ls", "list the workspace"),
    quiet("ls -lh", "list with sizes"),
    quiet("ls -R src | head", "list recursively"),
    quiet("ls -1 | wc -l", "count entries"),
    quiet("rg -n TODO src", "search with ripgrep"),
    quiet("rg --files", "list files ripgrep sees"),
    quiet("rg -l 'import os' -g '*.py'", "files importing os"),
    quiet("rg -i foo -C 2 src", "search with context"),
    quiet("grep -rn foo .", "recursive grep"),
    quiet("grep -rn --include='*.py' foo src", "grep Python files"),
    quiet("grep -c x f", "count matches"),
    quiet("grep -E 'a|b' f", "extended regex"),
    quiet("find . -name '*.py' -not -path './.venv/*'", "find Python files"),
    quiet("find src -type f -name '*.ts'", "find TypeScript files"),
    quiet("find . -maxdepth 2 -type d", "find directories"),
    quiet("find . -newer setup.py -name '*.py'", "recently changed files"),
    quiet("find . -name '*.pyc' | head", "find compiled files"),
    quiet("wc -l *.py", "line counts"),
    quiet("wc -l src/*.py", "line counts under src"),
    quiet("wc -c < f", "a byte count from stdin"),
    quiet("head -50 README.md", "the top of a file"),
    quiet("head -n 20 f", "the top of a file"),
    quiet("head -c 200 f; echo", "the first bytes"),
    quiet("tail -n 100 log.txt", "the end of a log"),
    quiet("tail -20 f", "the end of a file"),
    quiet("sed -n '1,20p' f", "print some lines"),
    quiet("sed -n '/start/,/end/p' f", "print a range"),
    quiet("sed 's/foo/bar/g' f", "a substitution to stdout"),
    quiet("awk '{print $1}' f", "the first column"),
    quiet("awk -F, '{s += $2} END {print s}' data.csv", "a column sum"),
    quiet("awk 'NR==1' f", "the first line"),
    quiet("jq .name package.json", "one JSON field"),
    quiet("jq -r '.dependencies | keys[]' package.json", "dependency names"),
    quiet("jq '.scripts' package.json | head", "the scripts"),
    quiet("echo x >/dev/stderr", "a message to stderr"),
    quiet("echo x >&2", "a message to stderr by descriptor"),
    quiet("echo hi", "echo"),
    quiet("printf '%s\\n' a b", "printf"),
    quiet("cat <<EOF\nplain text\nEOF", "a plain here-document to stdout"),
    quiet("for f in *.py; do wc -l \"$f\"; done", "a loop over files"),
    quiet("for f in src/*.py; do echo \"$f\"; head -3 \"$f\"; done", "a loop with two commands"),
    quiet("[ -d src ] && ls src", "a [ ] test, then a list"),
    quiet("test -f setup.py && echo yes", "test"),
    quiet("xvfb-run -a ls", "a wrapper running a listing"),
    quiet("ps -eo pid,user,args --sort -pcpu", "a format naming args is -o's value, not BSD e"),
    quiet("cd src && grep -rn TODO", "a search in a directory of the workspace"),
    quiet("unbuffer git status", "a wrapper running git status"),
    quiet("while read -r line; do echo \"$line\"; done < notes.txt",
          "a value read from a file, never evaluated"),
    quiet("time ls", "time a command"),
    quiet("ls | time grep x", "time in a pipeline"),
    quiet("time git status", "time git status"),
    quiet("ls 2>/dev/null", "errors to /dev/null"),
    quiet("ls nope 2>&1", "errors to stdout"),
    quiet("cat f | sort | uniq -c | sort -rn | head", "a counting pipeline"),
    quiet("sort f", "sort to stdout"),
    quiet("sort -u f", "unique sort"),
    quiet("sort -k2 -n data.txt", "sort by a key"),
    quiet("uniq -c f", "count repeats"),
    quiet("cut -d, -f1 data.csv", "a CSV column"),
    quiet("tr a-z A-Z < f", "translate characters"),
    quiet("diff a.txt b.txt", "compare files"),
    quiet("diff -u a.py b.py", "a unified diff"),
    quiet("diff <(sort a) <(sort b)", "compare sorted files"),
    quiet("sort <(ls a) <(ls b)", "process substitution"),
    quiet("cmp a b", "compare bytes"),
    quiet("comm -12 a b", "common lines"),
    quiet("file src/app.py", "a file's type"),
    quiet("stat f", "a file's metadata"),
    quiet("du -sh src", "disk use"),
    quiet("df -h", "free space"),
    quiet("pwd", "the current directory"),
    quiet("whoami", "the user"),
    quiet("id", "the user's ids"),
    quiet("date", "the date"),
    quiet("uname -a", "the system"),
    quiet("hostname", "the host name"),
    quiet("nproc", "the number of CPUs"),
    quiet("sleep 1", "wait a second"),
    quiet("locale", "the locale"),
    quiet("which python3", "where python3 is"),
    quiet("command -v node", "whether node exists (command -v only looks it up)"),
    quiet("type ls", "what ls is"),
    quiet("printenv HOME", "one variable"),
    quiet("basename /a/b.txt", "a base name"),
    quiet("basename \"$PWD\"", "the directory's name"),
    quiet("dirname src/app.py", "a directory name"),
    quiet("realpath src", "a real path"),
    quiet("readlink -f link", "where a link points"),
    quiet("tree -L 2", "a tree"),
    quiet("tree src", "a tree of src"),
    quiet("md5sum f", "a checksum"),
    quiet("sha256sum dist/a.whl", "a checksum"),
    quiet("xxd f | head", "a hex dump"),
    quiet("od -c f | head", "an octal dump"),
    quiet("hexdump -C f | head", "a hex dump"),
    quiet("nl f", "numbered lines"),
    quiet("column -t f", "aligned columns"),
    quiet("fold -w 80 f", "wrapped lines"),
    quiet("rev f", "reversed lines"),
    quiet("tac f", "lines in reverse order"),
    quiet("seq 1 10", "a sequence"),
    quiet("true", "nothing"),
    quiet("ps aux", "processes"),
    quiet("ps -ef | grep python", "Python processes"),
    quiet("python3 --version", "Python's version"),
    quiet("node --version", "node's version"),
    quiet("npm --version", "npm's version"),
    # go version and go env run the toolchain go.mod names (GOTOOLCHAIN=auto): contained.
    quiet("gofmt -l .", "unformatted go files"),
    quiet("gofmt -d main.go", "a go file's formatting diff"),
    quiet("uv --version", "uv's version"),
    quiet("pip list", "installed packages"),
    quiet("pip show requests", "one package"),
    quiet("pip freeze", "pinned packages"),
    quiet("npm ls", "installed node packages"),
    quiet("docker ps", "running containers"),
    quiet("docker images", "local images"),
    quiet("less README.md", "page a file (no terminal: it prints it)"),
    quiet("man ls", "a manual page"),
    quiet("cat README.md", "read a file"),
    quiet("cat -n src/app.py", "read with line numbers"),
    quiet("cat pyproject.toml | grep version", "a version line"),
    quiet("echo \"$PATH\"", "PATH's value"),
    quiet("echo $HOME", "HOME's value"),
    quiet("x=1; echo $x", "a plain variable"),
    quiet("FOO=bar; echo \"$FOO\"", "a plain variable, quoted"),
    quiet("cd src && ls", "list after cd"),
    quiet("cd src && cat app.py", "read after cd inside the workspace"),
    quiet("ls && git status", "two reads"),
    quiet("git status; git log -1", "two reads"),
    quiet("test -n \"$x\" || echo empty", "a test or a message"),
    quiet("if [ -f x ]; then cat x; else echo none; fi", "an if statement"),
    quiet("while read -r line; do echo \"$line\"; done < f", "a read loop"),
    quiet("read -r a b <<< \"1 2\"; echo $a", "read from a here-string"),
    quiet("mapfile -t lines < f", "read lines into an array"),
    quiet("printf -v out '%s' x; echo $out", "printf into a plain variable"),
    quiet("echo ${#x}", "a length"),
    quiet("echo ${x:-default}", "a default value"),
    quiet("echo \"${x%.py}\"", "a suffix removed"),
    quiet("echo $(git rev-parse HEAD)", "a substitution of a read"),
    quiet("echo \"Branch: $(git branch --show-current)\"", "a substitution in a string"),
    quiet("git log --format=%H -1 | cut -c1-7", "a short hash"),
]

RULED = [
    ("npm test -- --watch=false", "Bash(npm test *)", "npm test with arguments for the runner"),
    ("npm test", "Bash(npm test *)", "a prefix rule also matches no further words"),
    ("git diff --stat", "Bash(git diff *)", "git diff with an option"),
    ("git diff HEAD", "Bash(git diff:*)", "Claude Code's colon syntax"),
    ("uv run pytest -x", "Bash(uv run pytest *)", "a rule naming the runner and the command"),
    ("sort -o out.txt in.txt", "Bash(sort -o *)", "the rule names sort -o: inside the workspace"),
    ("tar xzf a.tgz", "Bash(tar *)", "docs/SPEC.md §4.7: Bash(tar *) covers tar xzf a.tgz"),
    ("tar -xzf a.tgz -C build", "Bash(tar *)", "extract into the workspace"),
    ("pytest -x -q tests/test_a.py", "Bash(pytest *)", "pytest with options"),
    ("pytest", "Bash(pytest *)", "bare pytest"),
    ("npm run test:unit", "Bash(npm run test:*)", "a word glob"),
    ("make test", "Bash(make test)", "an exact rule"),
    ("make -j4 all", "Bash(make *)", "make with a job count"),
    ("cargo test --all", "Bash(cargo test *)", "cargo test"),
    ("cargo build --release", "Bash(cargo build *)", "cargo build"),
    ("go test ./...", "Bash(go test *)", "go test"),
    ("git push origin feature", "Bash(git push origin feature)", "an exact push"),
    ("npm install", "Bash(npm install)", "an exact install"),
    ("npm ci", "Bash(npm ci)", "a clean install"),
    ("pip install -e .", "Bash(pip install -e .)", "an editable install"),
    ("pip install requests", "Bash(pip install *)", "an install"),
    ("curl -s https://api.example.com/x", "Bash(curl *)", "a download to stdout"),
    ("curl -o out.json https://x.example", "Bash(curl -o *)", "a download into the workspace"),
    ("wget -q https://x.example/f.tgz", "Bash(wget *)", "a download into the workspace"),
    ("mkdir -p build/out", "Bash(mkdir *)", "make directories"),
    ("touch src/new.py", "Bash(touch *)", "create a file"),
    ("cp a.txt b.txt", "Bash(cp *)", "copy inside the workspace"),
    ("mv old.py new.py", "Bash(mv *)", "rename inside the workspace"),
    ("sed -i 's/a/b/' f", "Bash(sed -i *)", "the rule names sed -i"),
    ("git add -A", "Bash(git add *)", "stage everything"),
    ("git commit -m 'fix: x'", "Bash(git commit *)", "commit"),
    ("git checkout -b feature", "Bash(git checkout *)", "a new branch"),
    ("git stash", "Bash(git stash)", "stash"),
    ("git fetch origin", "Bash(git fetch *)", "fetch"),
    ("git pull", "Bash(git pull)", "pull"),
    ("python3 -m pytest -q", "Bash(python3 -m pytest *)", "pytest as a module"),
    ("python -m pytest tests", "Bash(python -m pytest *)", "pytest as a module"),
    ("npx prettier --check .", "Bash(npx prettier *)", "a runner and its tool"),
    ("poetry run pytest", "Bash(poetry run pytest *)", "a runner and its tool"),
    ("timeout 60 pytest -x", "Bash(pytest *)", "a wrapper adds nothing to what runs"),
    ("docker build -t app .", "Bash(docker build *)", "build an image"),
    ("rm build/x.o", "Bash(rm *)", "delete one file inside the workspace"),
    ("chmod +x script.sh", "Bash(chmod +x *)", "make a script executable"),
    ("ruff check src", "Bash(ruff *)", "a linter"),
    ("mypy --strict src", "Bash(mypy *)", "a type checker"),
    ("uv sync", "Bash(uv sync *)", "sync the environment"),
    ("gh pr list", "Bash(gh pr list *)", "list pull requests"),
    ("echo x | tee out.txt", "Bash(tee *)", "tee into the workspace"),
    ("git ls-files | xargs grep -n foo", "Bash(xargs grep *)",
     "xargs grep reads the files xargs is given: a rule naming xargs and grep covers it"),
    ("./scripts/test.sh", "Bash(./scripts/test.sh)", "the person named the script"),
]
# A write rule for a path covers redirections there.
WRITE_RULED = [
    ("echo x > build/out.txt", {"tool": "write_file", "when": {"path": "build/**"}},
     "a write_file rule covers the redirection target"),
    ("cat > docs/a.md <<EOF\n# Title\nEOF", {"tool": "write_file", "when": {"path": "docs/**"}},
     "a here-document written to a path the rule covers"),
    ("git log > build/log.txt", {"tool": "write_file", "when": {"path": "build/**"}},
     "a read with its output redirected to a covered path"),
]
QUIET_RULED: dict[str, str] = {}


def _ruled() -> list[object]:
    out: list[object] = []
    for command, rule, why in RULED:
        defect = QUIET_RULED.get(command)
        marks = [pytest.mark.xfail(strict=True, reason=f"QUIET: {defect}")] if defect else []
        out.append(pytest.param(command, rule, why, marks=marks, id=command[:60]))
    return out

# Everyday forms bashlex does not read, which the preparse module rewrites first: quiet, but
# never verified on the rewrite (docs/SPEC.md §4.2): they run contained in the sandbox.
ON_A_REWRITE = [
    quiet("cat <<'EOF'\nhello $(world)\nEOF", "a quoted here-document to stdout"),
    quiet("[[ -f x ]] && cat x", "a [[ ]] test, then a read"),
    quiet("case \"$x\" in a) echo a;; *) echo other;; esac", "a case statement"),
    quiet("echo $((1 + 2))", "arithmetic"),
    quiet("echo $(( 60 * 60 ))", "arithmetic with spaces"),
    quiet('i=0; echo "${arr[$((i + 1))]}"', "an arithmetic index runs nothing"),
    quiet("for i in 1 2 3; do echo $((i * 2)); done", "arithmetic on literal loop words"),
    quiet("declare -a arr=(1 2 3); echo ${arr[1]}", "an array"),
]


@pytest.mark.parametrize(("command", "why"), ON_A_REWRITE)
def test_everyday_forms_on_a_rewrite_run_contained(command: str, why: str) -> None:
    ctx = context()
    held = Context(ctx.tools, ctx.rules, ctx.autonomy, workspace=WORKSPACE,
                   containment=Containment(sandbox=True, checkpoints=True))
    found = assess(command, held)
    assert found.tier is Tier.CONTAINED, f"{why}\n{explain(found)}"
    assert "parsed after a rewrite of" in found.reason, explain(found)
    assert found.risk.level.value == 0, explain(found)


@pytest.mark.parametrize(("command", "why"), READ_ONLY)
def test_everyday_reads_run_unasked_under_cautious(command: str, why: str) -> None:
    found = assess(command, context())
    assert (found.verdict, found.source) == (Verdict.ALLOW, Source.AUTONOMY), \
        f"{why}\n{explain(found)}"
    assert found.risk.level.value == 0, explain(found)


@pytest.mark.parametrize(("command", "rule", "why"), _ruled())
def test_a_named_rule_covers_the_command(command: str, rule: str, why: str) -> None:
    found = assess(command, context([rule]))
    assert (found.verdict, found.source) == (Verdict.ALLOW, Source.RULE), f"{why}\n{explain(found)}"
    assert rule in (found.rule or ""), explain(found)
    assert all(c.permitted for c in found.commands), explain(found)


@pytest.mark.parametrize(("command", "rule", "why"), WRITE_RULED)
def test_a_write_rule_covers_the_redirection(command: str, rule: object, why: str) -> None:
    found = assess(command, context([rule]))
    assert found.verdict is Verdict.ALLOW, f"{why}\n{explain(found)}"
    assert any(c.is_redirect and c.allowed_by for c in found.commands), explain(found)


@pytest.mark.parametrize(("command", "rule", "why"), RULED)
def test_without_its_rule_a_ruled_command_is_asked_unless_read_only(
        command: str, rule: str, why: str) -> None:
    """The rule rows prove something: without the rule, only a read-only one runs."""
    found = assess(command, context())
    if found.verdict is Verdict.ALLOW:
        assert found.risk.level.value == 0, f"{why}\n{explain(found)}"
    else:
        assert found.verdict is Verdict.ASK, explain(found)


def test_the_tables_are_as_large_as_promised() -> None:
    assert len(READ_ONLY) + len(RULED) + len(WRITE_RULED) >= 120
