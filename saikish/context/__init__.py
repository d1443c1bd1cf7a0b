"""The model's context window (docs/SPEC.md §10.3): how full it is, and compaction."""
