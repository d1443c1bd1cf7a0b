"""The attack tables by mechanism (tests/engine/test_attacks_*.py) stay as large as promised:
a table emptied by mistake fails here, not silently."""

from __future__ import annotations

from tests.engine import (
    test_attacks_arithmetic,
    test_attacks_autonomy,
    test_attacks_deny_rules,
    test_attacks_escalation,
    test_attacks_functions,
    test_attacks_git_dir,
    test_attacks_gtfobins,
    test_attacks_options,
    test_attacks_parser,
    test_attacks_paths,
    test_attacks_redirections,
    test_attacks_runners,
    test_attacks_secrets,
    test_attacks_stdin,
    test_attacks_variables,
    test_attacks_working_directory,
)


def test_every_mechanism_has_its_rows() -> None:
    sizes = {
        "options": len(test_attacks_options.ROWS),
        "redirections": len(test_attacks_redirections.REDIRECTS),
        "variables": len(test_attacks_variables.HIJACK),
        "runners": len(test_attacks_runners.ROWS),
        "escalation": len(test_attacks_escalation.ESCALATION)
        + len(test_attacks_escalation.OTHER_ESCALATORS),
        "stdin": len(test_attacks_stdin.STDIN),
        "functions": len(test_attacks_functions.SHADOW),
        "deny rules": len(test_attacks_deny_rules.DENY_DODGES)
        + len(test_attacks_deny_rules.DENY_UNSURE) + len(test_attacks_deny_rules.DENY_PLAIN),
        "paths": len(test_attacks_paths.PATHS) + len(test_attacks_paths.SYMLINKS)
        + len(test_attacks_paths.SYMLINKS3),
        "secrets": len(test_attacks_secrets.SECRETS),
        "parser": len(test_attacks_parser.ROWS),
        "autonomy": len(test_attacks_autonomy.NO_RULES) + len(test_attacks_autonomy.NO_RULES3)
        + len(test_attacks_autonomy.RULED),
        "arithmetic": len(test_attacks_arithmetic.ROWS),
        "git dir": len(test_attacks_git_dir.ROWS),
        "working directory": len(test_attacks_working_directory.DIRECTORY)
        + len(test_attacks_working_directory.DIRECTORY_HOLES),
    }
    assert all(size >= 5 for size in sizes.values()), sizes
    assert sum(sizes.values()) >= 900, sizes
    assert len(test_attacks_gtfobins.GTFO) >= 900
