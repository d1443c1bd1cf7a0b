"""Stored conversations (docs/SPEC.md §10.2): one JSON-lines file per session in the state dir.

records.py turns messages into lines and back, log.py appends them as they happen,
replay.py rebuilds a conversation from a file, catalog.py lists, finds and removes
files. (session.py, beside this package, is the run's mutable state.)
"""
