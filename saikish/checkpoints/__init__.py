"""Checkpoints and undo (docs/SPEC.md §4.10): what a call nobody approved changed can be put back.

What this package promises, one line each (each has a test in
tests/checkpoints/test_checkpoints.py):

- Before a call that can write and that no person approved in the box, the workspace's
  files are snapshotted; after it, the files it added, changed and deleted are recorded.
- The snapshots live in a git repository of saikish's own in the state dir, one per
  workspace; the project's `.git` is never read nor written, and no config, hook or
  fsmonitor of the project's runs.
- Only what changed since the last snapshot is copied: node_modules, virtual environments,
  build output (exclude.txt) and the project's .gitignore'd files are never copied, nor
  files over the size cap, nor nested repositories.
- `saikish undo` shows the diff before it restores, and records the files as they were
  before restoring, so an undo loses nothing and can itself be undone.
- A broken store or a missing git is one line, and turns checkpoints off; it never
  stops saikish.

The modules: values (the nouns), git (the shadow repository), snapshot (status ->
index), ledger (checkpoints as commits and refs), undo (plans and restores), prune,
store (`Checkpoints`, the object a Session owns), calls (what the executor calls).
"""
