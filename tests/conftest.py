"""Every test gets the fixtures of tests/support/harness.py (isolated dirs, the CLI runner)."""

pytest_plugins = ["tests.support.harness"]
