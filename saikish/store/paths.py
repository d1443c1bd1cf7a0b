"""Where saikish keeps its config and state (docs/SPEC.md §2)."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """`$SAIKISH_CONFIG_DIR`, else the platform's user config dir."""
    override = os.environ.get("SAIKISH_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("saikish"))


def state_dir() -> Path:
    """`$SAIKISH_STATE_DIR`, else the platform's user state dir."""
    override = os.environ.get("SAIKISH_STATE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_state_dir("saikish"))


def allowlist_path() -> Path:
    """The hand-editable allowlist (docs/SPEC.md §4.5)."""
    return config_dir() / "allowlist.yaml"


def trust_path() -> Path:
    """Which project agent.yml files the person trusted, by path and SHA-256 (docs/SPEC.md §4.8)."""
    return state_dir() / "trusted.json"
