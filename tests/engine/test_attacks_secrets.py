"""Attacks on the approval engine by reads of secrets: keys, tokens and credentials, read or
sent anywhere (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

# -- reads of secrets ------------------------------------------------------------------

SECRETS = [
    A("cat .env", "reads .env", Why.SECRET, RUNS),
    A("cat .env.local", "reads .env.local", Why.SECRET, RUNS),
    A("cat ~/.ssh/id_rsa", "reads ~/.ssh/id_rsa", Why.SECRET, RUNS),
    A("cat id_ed25519", "reads id_ed25519", Why.SECRET, RUNS),
    A("grep KEY ~/.aws/credentials", "reads ~/.aws/credentials", Why.SECRET, RUNS),
    A("cat /proc/self/environ", "reads /proc/self/environ", Why.SECRET, RUNS),
    A("cat /proc/1/environ", "reads /proc/1/environ", Why.SECRET, RUNS),
    A("cat server.pem", "reads server.pem", Why.SECRET, RUNS),
    A("cat .netrc", "reads .netrc", Why.SECRET, RUNS),
    A("head ~/.npmrc", "reads ~/.npmrc", Why.SECRET, RUNS),
    A("cat .ssh/config", "reads .ssh/config", Why.SECRET, RUNS),
    A("base64 ~/.ssh/id_rsa", "reads ~/.ssh/id_rsa", Why.SECRET, RUNS),
    A("cat config/.env.production", "reads config/.env.production", Why.SECRET, RUNS),
    A("grep -r token .env", "reads .env", Why.SECRET, RUNS),
    A("head -c 100 private.key", "reads private.key", Why.SECRET, RUNS),
    A("cat .aws/credentials", "reads .aws/credentials", Why.SECRET, RUNS),
    A("cat secrets.json", "reads secrets.json", Why.SECRET, RUNS),
    A("cat config/secret.json", "reads config/secret.json", Why.SECRET, RUNS),
    A("tail .npmrc", "reads .npmrc", Why.SECRET, RUNS),
    A("sort .env", "reads .env", Why.SECRET, RUNS),
    A("git diff --no-index .env x", "reads .env", Why.SECRET, RUNS),
    A("cat < .env", "reads .env", Why.SECRET, RUNS),
    A("cat < ~/.ssh/id_rsa", "reads ~/.ssh/id_rsa", Why.SECRET, RUNS),
    A("while read l; do echo $l; done < /etc/shadow", "reads /etc/shadow", Why.SECRET, RUNS),
    A("wc -l < /proc/self/environ", "reads /proc/self/environ", Why.SECRET, RUNS),
]


@pytest.mark.parametrize(("row", "autonomy"), params(SECRETS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
