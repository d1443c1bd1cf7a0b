"""The catalogue's examples hold (saikish/engine/commands/catalogue/README.md, "Examples").

Every `quiet` line must be verified with no rules under cautious autonomy and every `asks`
line must not be, for the reason it quotes; a wrong example is reported with its file:line,
by `python -m saikish.engine.commands.catalogue` as much as by these tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from saikish.engine.commands.catalogue import (
    EXAMPLES,
    FLAGS,
    HERE,
    Catalogue,
    Effect,
    parse_entry,
)
from saikish.engine.commands.catalogue.__main__ import main
from saikish.engine.commands.catalogue.examples import broken, examples, read_example

ROOT = Path(__file__).resolve().parents[2]


def test_every_example_of_the_catalogue_holds() -> None:
    judged, problems = broken(Catalogue())
    assert judged >= 1000, f"only {judged} examples"
    assert not problems, f"{len(problems)} examples broken:\n" + "\n".join(problems)


def test_examples_cover_both_kinds_in_every_family() -> None:
    found, malformed = examples(Catalogue())
    assert not malformed
    families = {e.where.split(":")[0] for e in found}
    assert {"git.cat", "coreutils.cat", "pkg.cat", "build.cat", "text.cat"} <= families
    assert {e.keyword for e in found} == {"quiet", "asks"}


def folder_with(tmp_path: Path, entry: str) -> Catalogue:
    """A catalogue folder holding one file, ex.cat, with `entry` after two comment lines."""
    (tmp_path / "ex.cat").write_text("# a test catalogue\n\n" + entry, encoding="utf-8")
    return Catalogue(tmp_path)


SORT = "[sort]\nrisk read\n-o=FILE --output=FILE  writes \"sort -o writes its output\"\n"


def test_a_wrong_quiet_is_reported_with_file_line(tmp_path: Path) -> None:
    # `sort -o` writes: it is not verified, so the example is wrong.
    catalogue = folder_with(tmp_path, SORT + "quiet sort names.txt\nquiet sort -o out names.txt\n")
    judged, problems = broken(catalogue)
    assert judged == 2
    assert len(problems) == 1
    assert problems[0].startswith("ex.cat:7: quiet 'sort -o out names.txt' should be verified;")
    assert "sort -o writes its output" in problems[0]  # what the engine said


def test_a_wrong_asks_is_reported_with_file_line(tmp_path: Path) -> None:
    lines = ('asks sort names.txt "writes its output"\n'      # verified: wrong
             'asks sort -o out x "deletes the disk"\n'        # asked, for another reason
             'asks sort -o out x "writes its output"\n')      # right
    judged, problems = broken(folder_with(tmp_path, SORT + lines))
    assert judged == 3
    assert [p.split(" should")[0] for p in problems] == [
        "ex.cat:6: asks 'sort names.txt'", "ex.cat:7: asks 'sort -o out x'"]
    assert 'not verified, for "deletes the disk"' in problems[1]
    assert "allow: every command is read-only" in problems[0]


def test_a_malformed_example_is_named() -> None:
    with pytest.raises(ValueError, match=r"x.cat:3: write asks COMMAND LINE \"reason words\""):
        read_example("asks git push --force", "x.cat:3")
    with pytest.raises(ValueError, match="x.cat:4: quiet needs a command line"):
        read_example("  quiet ", "x.cat:4")
    assert read_example("-f --force", "x.cat:5") is None


def test_an_example_line_is_bash_as_written() -> None:
    # '#' in an example is bash's, not a catalogue comment; the reason is the last quotes.
    found = read_example("""asks grep -v '^#' a | sh -c "x" "is unknown\"""", "x.cat:1")
    assert found is not None
    assert (found.line, found.reason) == ("""grep -v '^#' a | sh -c "x\"""", "is unknown")


def test_loading_an_entry_skips_its_examples() -> None:
    # Examples are judged only by the check: parsing an entry does not even read them.
    entry = parse_entry("x.cat", 1, ["risk read", "quiet not even bash ((", 'asks ) "x"'],
                        ("tool",))
    assert entry.options == ()


def test_the_check_fails_naming_the_broken_example(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder_with(tmp_path, "[zz-tool]\nrisk destructive\nquiet zz-tool -x\n")
    assert main([], tmp_path) == 1
    out = capsys.readouterr().out
    assert out.startswith("ex.cat:5: quiet 'zz-tool -x' should be verified; the engine: ask")
    assert out.endswith("1 entries parse, 0 broken; 1 examples, 1 the engine disagrees with\n")


def test_the_check_of_the_real_catalogue_passes() -> None:
    run = subprocess.run([sys.executable, "-m", "saikish.engine.commands.catalogue"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    assert run.stdout.endswith(" the engine disagrees with\n")
    assert run.stderr == ""


def test_every_keyword_the_loader_accepts_is_documented() -> None:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    words = {*FLAGS, *(e.value for e in Effect), *(k.strip() for k in EXAMPLES), "like",
             "risk", "aka", "options", "global-options", "default", "stdin", "operands",
             "if-operands"}
    assert not [w for w in sorted(words) if f"`{w}" not in readme]
