"""The catalogue's format: every new keyword is read, and a broken line is named by file
and line (saikish/engine/commands/catalogue/README.md; docs/SPEC.md §4.7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from saikish.engine.commands.catalogue import CHECKS_DIR, Catalogue, CatalogueError, Effect
from saikish.engine.commands.checks import CHECKS
from saikish.engine.commands.effects import OPTION_EFFECTS
from saikish.engine.commands.variables import read_variables
from saikish.types import Risk


def catalogue(tmp_path: Path, text: str) -> Catalogue:
    (tmp_path / "t.cat").write_text(text, encoding="utf-8")
    return Catalogue(tmp_path)


def test_every_checker_module_is_registered_and_every_registered_one_exists() -> None:
    modules = {p.stem for p in CHECKS_DIR.glob("*.py") if p.stem != "__init__"}
    assert modules == set(CHECKS)


def test_every_option_effect_has_a_line_in_the_effects_table() -> None:
    assert set(OPTION_EFFECTS) == set(Effect)


def test_every_check_the_catalogue_names_is_one_it_has() -> None:
    real = Catalogue()
    named = {c for name in real.names() if (e := real.get(*name.split())) for c in e.checks}
    assert named == set(CHECKS)  # no checker is left without an entry naming it


@pytest.mark.parametrize(("text", "words"), [
    ("[x]\ncheck nosuch\n", "t.cat:2: check nosuch: there is no checker module"),
    ("[x]\ncheck Sed!\n", "t.cat:2: write check NAME"),
    ("[x]\nif-value exec:* runs \"why\"\n", "t.cat:2: write if-value GLOB... EFFECT"),
    ("[x]\nif-value exec:* exec\n", "t.cat:2: write if-value GLOB... EFFECT"),
    ("[x]\nkey-operand of\n", "t.cat:2: write key-operand KEY ROLE"),
    ("[x]\nprints-env sometimes\n", "t.cat:2: unknown setting"),
    ("[x]\nruns-project\n", "t.cat:2: unknown setting"),
    ("[x]\n\n-x  operands=nothing\n", "t.cat:3: operand role is one of"),
    ("[x]\n-x  argv1\n", "t.cat:2: 'argv1' is neither an option spelling nor an effect"),
])
def test_a_broken_line_is_named_by_file_and_line(tmp_path: Path, text: str,
                                                 words: str) -> None:
    found = catalogue(tmp_path, text)
    assert found.get("x") is None
    assert any(words in e for e in found.errors), found.errors


def test_the_new_keywords_are_read(tmp_path: Path) -> None:
    found = catalogue(tmp_path, """[x]
underscores
operand-ends-options
check sed
if-value exec:* exec "runs a program"
if-value *@* network "fetches"
if-value env prints-env "prints"
key-operand of write
runs-project "runs the project's code"
prints-env bare
-a=NAME  argv0
-f=F  names-from
-p  prints-env
-x  operands=cmd
-r  operands=path?,write?
""").get("x")
    assert found is not None
    assert found.has("underscores") and found.has("operand-ends-options")
    assert found.checks == ("sed",)
    assert [(r.globs, r.risk, r.runs, r.prints_env) for r in found.value_rules] == [
        (("exec:*",), Risk.UNKNOWN, True, False), (("*@*",), Risk.NETWORK, False, False),
        (("env",), Risk.READ_ONLY, False, True)]
    assert found.key_operands == (("of", "write"),)
    assert found.project == "runs the project's code" and found.prints_env == "bare"
    assert found.shorts["a"].effects == {Effect.ARGV0}
    assert found.shorts["a"].risk is Risk.UNKNOWN
    assert found.shorts["f"].effects == {Effect.NAMES_FROM}
    assert [r.name for r in found.shorts["r"].operands] == ["path", "write"]
    assert [r.name for r in found.shorts["x"].operands] == ["cmd"]


@pytest.mark.parametrize(("text", "words"), [
    ("loads-code LD_PRELOAD\nmagic X\n", "variables.txt:2: write EFFECT NAME..."),
    ("harmless NODE_*\n", "variables.txt:1: harmless names exact variables"),
    ("shell A*B\n", "variables.txt:1: 'A*B' is not NAME, PREFIX* or *SUFFIX"),
    ("shell PATH\nharmless PATH\n", "PATH is both harmless and not"),
])
def test_a_broken_variables_line_is_named(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "variables.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogueError, match=words.replace(".", r"\.").replace("*", r"\*")):
        read_variables(path)


def test_the_catalogue_check_names_a_broken_example_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "t.cat").write_text("[true]\nrisk read\nasks true \"never\"\n",
                                    encoding="utf-8")
    script = ("import sys; from pathlib import Path; "
              "from saikish.engine.commands.catalogue.__main__ import main; "
              f"sys.exit(main([], Path({str(tmp_path)!r})))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 1
    assert "t.cat:3: asks 'true'" in done.stdout


def test_a_broken_escalation_entry_stays_on_the_escalation_list(tmp_path: Path) -> None:
    found = catalogue(tmp_path, "[sudo]\nrisk escalation\n--bogus  nonsense\n"
                                "[ls]\nrisk read\n[su]\nrisk escalation\n")
    assert found.escalators() == {"sudo", "su"}
    assert found.get("sudo") is None and found.errors


def test_the_catalogue_check_reads_the_variables_file_too(tmp_path: Path) -> None:
    (tmp_path / "t.cat").write_text("[true]\nrisk read\n", encoding="utf-8")
    (tmp_path / "variables.txt").write_text("shell PATH\nmagic X\n", encoding="utf-8")
    script = ("import sys; from pathlib import Path; "
              "from saikish.engine.commands.catalogue.__main__ import main; "
              f"sys.exit(main([], Path({str(tmp_path)!r})))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 1
    assert "variables.txt:2: write EFFECT NAME..." in done.stdout
