"""saikish: an interactive terminal agent shell that asks before anything changes."""

__version__ = "0.1.0"
