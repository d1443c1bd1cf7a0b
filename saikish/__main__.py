"""`python -m saikish`."""

from saikish.cli import entry

entry()
