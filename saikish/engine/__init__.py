"""The approval engine: a tool call in, an Assessment out, pure (docs/SPEC.md §4).

bash/ reads shell text the way bash does; commands/ knows commands (the catalogue and
its grammar); policy.py is the pipeline, rules.py what a rule means, boundary.py where
reads stop being harmless.
"""
