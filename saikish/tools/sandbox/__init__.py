"""Containment: what a command nobody looked at can see, reach and change (docs/SPEC.md §4.9).

The pieces, each a concept of its own (README.md lists what they promise, each with its
test): `environment` (the variables that pass), `protected` (paths nothing inside may
change), `gitconfig` (git's guards as files), `placeholders` (stand-ins for protected
names that do not exist yet), `layout` (the mounts: what is visible, what is hidden),
`walls` (which wall a failed command hit), `runner` and `inside` (one sandbox per session
that runs each call). `saikish.tools.sandbox.launcher` puts them together.
"""
