"""How quiet saikish is on what coding agents really run (issue 27, item 5a).

Every command of benchmarks/agent_commands.jsonl goes through `saikish check
--json -- COMMAND` (saikish.cli.main, in this one process: the pipeline `check
--batch -` runs, which cannot carry the multi-line rows) in a scratch git
workspace with its own HOME, SAIKISH_CONFIG_DIR and SAIKISH_STATE_DIR, once with
the sandbox this machine gives and once with the sandbox off. Prints prompts per
100 benign commands (ask + reject of `benign` rows), per family, the
allow/ask/reject split, and every `person` row that was allowed (a dangerous
miss). Goal: at most 5 prompts per 100 benign commands with the sandbox, and no
miss. A measurement: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().with_name("agent_commands.jsonl")
GOAL_PER_100 = 5.0
PROMPTS = ("ask", "reject")
SHOWN = 90  # characters of a command in a listing
LABELS = ("benign", "person")
FAMILIES = frozenset({
    "archive", "build", "database", "delete", "docker", "edit", "env", "format", "git-read",
    "git-write", "home", "inspect", "install", "lint", "network", "package-info", "process",
    "push", "script", "search", "secrets", "server", "system", "test", "typecheck",
})
FIELDS = frozenset({"label", "family", "command", "why"})

# A small project of the kinds the corpus talks about: Python, Node, a README.
SCRATCH_FILES = {
    "README.md": "# demo\n",
    "pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n",
    "package.json": '{"name": "demo", "version": "0.1.0", "scripts": {"test": "jest"}}\n',
    "src/app.py": "DEBUG = True\n\n\ndef main() -> None:\n    print('hi')\n",
    "tests/test_app.py": "def test_nothing() -> None:\n    assert True\n",
    ".gitignore": ".env\nnode_modules/\n",
}


class CorpusError(Exception):
    """A corpus line that is not a well-formed row; the message names file and line."""


@dataclass(frozen=True)
class Row:
    """One corpus line: what an agent ran and whether it needs a person."""

    label: str
    family: str
    command: str
    why: str = ""


@dataclass(frozen=True)
class Answer:
    """What saikish said about one row."""

    row: Row
    decision: str
    risk: str
    tier: str | None
    reason: str


def load_corpus(path: Path = CORPUS) -> list[Row]:
    """The corpus rows, in file order; CorpusError names the first bad line."""
    rows: list[Row] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{number}"
        row = parse_row(line, where)
        if row.command in seen:
            raise CorpusError(f"{where}: the command of line {seen[row.command]} again")
        seen[row.command] = number
        rows.append(row)
    return rows


def parse_row(line: str, where: str) -> Row:
    """One JSON line -> Row, or CorpusError saying what is wrong with it."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise CorpusError(f"{where}: not a JSON object")
    if set(data) - FIELDS:
        raise CorpusError(f"{where}: unknown keys {sorted(set(data) - FIELDS)}")
    for key in ("label", "family", "command"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise CorpusError(f"{where}: '{key}' must be a non-empty string")
    why = data.get("why", "")
    if not isinstance(why, str):
        raise CorpusError(f"{where}: 'why' must be a string")
    row = Row(data["label"], data["family"], data["command"], why.strip())
    if row.label not in LABELS:
        raise CorpusError(f"{where}: label '{row.label}' is not one of {', '.join(LABELS)}")
    if row.family not in FAMILIES:
        raise CorpusError(f"{where}: family '{row.family}' is not in FAMILIES")
    if row.command != row.command.strip():
        raise CorpusError(f"{where}: the command has blanks around it")
    if row.label == "person" and not row.why:
        raise CorpusError(f"{where}: a person row needs its 'why'")
    return row


# -- the scratch workspace -----------------------------------------------------------

@contextlib.contextmanager
def isolated() -> Iterator[Path]:
    """A scratch git workspace as the cwd, with HOME and saikish's dirs in temp dirs."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    with tempfile.TemporaryDirectory(prefix="saikish-quiet-") as root:
        base = Path(root).resolve()
        for name in ("home", "config", "state"):
            (base / name).mkdir()
        os.environ.update(HOME=str(base / "home"), SAIKISH_CONFIG_DIR=str(base / "config"),
                          SAIKISH_STATE_DIR=str(base / "state"))
        workspace = base / "workspace"
        make_workspace(workspace)
        os.chdir(workspace)
        try:
            yield base
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)


def make_workspace(workspace: Path) -> None:
    """A git repository with one commit of SCRATCH_FILES."""
    for name, text in SCRATCH_FILES.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "scratch"]):
        subprocess.run([*git, *argv], cwd=workspace, check=True)


def sandbox_state(workspace: Path) -> str:
    """One line: does the sandbox start here, and which."""
    from saikish.tools.sandbox.launcher import SandboxMode, start_sandbox

    setup = start_sandbox(SandboxMode.AUTO, str(workspace))
    if setup.sandbox is None:
        return f"not available ({setup.problem})"
    return "bubblewrap, running" if sys.platform.startswith("linux") else "running"


# -- asking saikish --------------------------------------------------------------------

def check_takes_sandbox() -> bool:
    """True when `saikish check` has a --sandbox option (the tier branch adds it)."""
    from saikish.cli.subcommands import check_parser

    return "--sandbox" in check_parser().format_help()


def judge(rows: Sequence[Row], sandbox: str, config_dir: Path,
          extra: Sequence[str] = ()) -> list[Answer]:
    """saikish's answer for every row, with `sandbox` in agent.yml (and --sandbox if known)."""
    from saikish.cli.main import main

    (config_dir / "agent.yml").write_text(f"sandbox: \"{sandbox}\"\n", encoding="utf-8")
    flag = [*extra, *(["--sandbox", sandbox] if check_takes_sandbox() else [])]
    answers = []
    for row in rows:
        out, err = io.StringIO(), io.StringIO()
        code = main(["check", "--json", *flag, "--", row.command], stdout=out, stderr=err)
        if code != 0:
            raise SystemExit(f"saikish check exited {code} on {row.command!r}: {err.getvalue()}")
        data = json.loads(out.getvalue())
        answers.append(Answer(row, data["decision"], data["risk"], data.get("tier"),
                              data["reason"]))
    return answers


# -- the report ------------------------------------------------------------------------

def per_100(answers: Sequence[Answer]) -> float:
    """Prompts (ask or reject) per 100 of `answers`."""
    prompts = sum(a.decision in PROMPTS for a in answers)
    return 100.0 * prompts / len(answers) if answers else 0.0


def split(answers: Iterable[Answer]) -> str:
    counts = collections.Counter(a.decision for a in answers)
    return "  ".join(f"{d} {counts[d]:4d}" for d in ("allow", "ask", "reject"))


def shown(command: str, width: int = SHOWN) -> str:
    flat = command.replace("\n", "\\n")
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def report(title: str, answers: Sequence[Answer], examples: int) -> None:
    """The figures for one sandbox setting."""
    benign = [a for a in answers if a.row.label == "benign"]
    person = [a for a in answers if a.row.label == "person"]
    figure = per_100(benign)
    print(f"\n== {title} ==")
    tiers = collections.Counter(a.tier for a in answers if a.tier)
    print("tier: " + (", ".join(f"{t} {n}" for t, n in tiers.most_common()) if tiers else
                      "n/a (this saikish's check prints no tier; figures come from decision)"))
    print(f"benign {len(benign):4d}: {split(benign)}")
    print(f"person {len(person):4d}: {split(person)}")
    verdict = "met" if figure <= GOAL_PER_100 else "MISSED"
    print(f"prompts per 100 benign commands: {figure:.1f} (goal <= {GOAL_PER_100:g}: {verdict})")
    asked = collections.Counter(a.risk for a in benign if a.decision in PROMPTS)
    print("benign prompts by risk: " + ", ".join(f"{r} {n}" for r, n in asked.most_common()))
    by_family(benign, examples)
    misses(person)


def differences(first: Sequence[Answer], second: Sequence[Answer], examples: int) -> None:
    """The rows whose decision (or tier) the sandbox setting changes."""
    changed = [(a, b) for a, b in zip(first, second, strict=True)
               if (a.decision, a.tier) != (b.decision, b.tier)]
    print(f"rows the sandbox setting changes: {len(changed)}")
    for a, b in changed[:examples * 5]:
        print(f"  [{a.row.label}/{a.row.family}] {shown(a.row.command)}: "
              f"{a.decision}/{a.tier or '-'} with, {b.decision}/{b.tier or '-'} without")


def by_family(benign: Sequence[Answer], examples: int) -> None:
    """Prompts per 100 benign commands of each family, worst first, with examples."""
    families: dict[str, list[Answer]] = collections.defaultdict(list)
    for answer in benign:
        families[answer.row.family].append(answer)
    print("per family (benign rows; worst first):")
    for family, group in sorted(families.items(), key=lambda kv: (-per_100(kv[1]), kv[0])):
        asked = [a for a in group if a.decision in PROMPTS]
        print(f"  {family:13} {len(asked):3d}/{len(group):3d}  {per_100(group):5.1f} per 100")
        for answer in asked[:examples]:
            print(f"      {answer.decision:6} {shown(answer.row.command)}\n"
                  f"             {shown(answer.reason, 110)}")


def misses(person: Sequence[Answer]) -> None:
    """Every person row that ran unasked: printed loudly."""
    allowed = [a for a in person if a.decision == "allow"]
    if not allowed:
        print("dangerous misses: none (every person row is asked or rejected)")
        return
    print(f"!!! DANGEROUS MISSES: {len(allowed)} person rows would run unasked !!!")
    for answer in allowed:
        print(f"  !! [{answer.row.family}] {shown(answer.row.command, 120)}\n"
              f"     tier {answer.tier or 'n/a'}; saikish: {answer.reason}\n"
              f"     needs a person: {answer.row.why}")


def main(argv: list[str] | None = None) -> int:
    """Measure and print; 0 whatever the figures, 2 when the corpus cannot be read."""
    parser = argparse.ArgumentParser(description="saikish's prompts on real agent commands")
    parser.add_argument("--examples", type=int, default=3, metavar="N",
                        help="asked benign commands shown per family (default 3)")
    parser.add_argument("--autonomy", metavar="LEVEL",
                        help="passed to saikish check (default: saikish's own default)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    try:
        rows = load_corpus(args.corpus)
    except (CorpusError, OSError) as exc:
        print(f"agent_quietness: {exc}", file=sys.stderr)
        return 2
    extra = ["--autonomy", args.autonomy] if args.autonomy else []
    with isolated() as base:
        print(f"corpus: {args.corpus.name}, {len(rows)} commands "
              f"({sum(r.label == 'benign' for r in rows)} benign, "
              f"{sum(r.label == 'person' for r in rows)} person); "
              f"autonomy: {args.autonomy or 'the default'}")
        print(f"sandbox on this machine: {sandbox_state(base / 'workspace')}; "
              f"check --sandbox: {'yes' if check_takes_sandbox() else 'no (agent.yml only)'}")
        results = {mode: judge(rows, mode, base / "config", extra) for mode in ("auto", "off")}
    report("sandbox auto (the default)", results["auto"], args.examples)
    report("sandbox off", results["off"], 0)
    differences(results["auto"], results["off"], args.examples)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stderr.close()
        sys.exit(0)
