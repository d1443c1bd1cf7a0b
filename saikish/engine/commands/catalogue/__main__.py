"""`python -m saikish.engine.commands.catalogue [FILE.cat...]`: parse every entry and judge
every example (`quiet`, `asks`), report what is wrong."""

from __future__ import annotations

import sys
from pathlib import Path

from saikish.engine.commands.catalogue import HERE, Catalogue, CatalogueError, parse_entry
from saikish.engine.commands.catalogue.examples import broken
from saikish.engine.commands.variables import VARIABLES, read_variables


def main(argv: list[str], folder: Path = HERE) -> int:
    """Check the named files (default: every file of the catalogue); 1 when one is broken."""
    catalogue = Catalogue(folder)
    files = {Path(a).name for a in argv}
    problems, count = [], 0
    for name, block in catalogue.blocks().items():
        if (files and block.filename not in files) or name != " ".join(block.words):
            continue
        try:
            parse_entry(block.filename, block.line, block.lines, block.words)
            count += 1
        except CatalogueError as exc:
            problems.append(str(exc))
    variables = folder / VARIABLES.name
    if variables.exists() and (not files or variables.name in files):
        try:
            read_variables(variables)
        except CatalogueError as exc:
            problems.append(str(exc))
    judged, wrong = broken(catalogue, files)
    for problem in problems + wrong:
        print(problem)
    print(f"{count} entries parse, {len(problems)} broken; "
          f"{judged} examples, {len(wrong)} the engine disagrees with")
    return 1 if problems or wrong else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # `... | head`: the reader has all it wanted
        sys.exit(1)
