"""Every test gets the fixtures of tests/support/harness.py (isolated dirs, the CLI runner)."""

import signal

pytest_plugins = ["tests.support.harness"]

# Started in the background by a shell without job control (`pytest &` in a script), pytest
# and its xdist workers begin with SIGINT ignored, and every saikish a test starts would
# inherit that: the Ctrl-C tests need it delivered, whoever started the suite.
signal.signal(signal.SIGINT, signal.default_int_handler)
