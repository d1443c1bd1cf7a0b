"""`python -m saikish`."""

from saikish.cli.main import entry

entry()
