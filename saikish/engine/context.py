"""The rules in force and everything `decide` may look at (docs/SPEC.md §4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from saikish.engine.programs import ProgramPath
from saikish.engine.tiers import Containment
from saikish.engine.toolfacts import ToolFacts
from saikish.rules import Rule
from saikish.types import Autonomy, Mode

BASH = "bash"


WRITE_TOOL = "write_file"


READ_TOOL = "read_file"


@dataclass(frozen=True)
class RuleSet:
    """The rules in force, in the order docs/SPEC.md §4.1 and §4.5 consult them."""

    config_allow: tuple[Rule, ...] = ()
    config_deny: tuple[Rule, ...] = ()
    file_allow: tuple[Rule, ...] = ()
    file_deny: tuple[Rule, ...] = ()
    session_allow: tuple[Rule, ...] = ()
    # False when the allowlist file's deny (or ask) lists could not be read whole.
    deny_complete: bool = True
    config_ask: tuple[Rule, ...] = ()
    file_ask: tuple[Rule, ...] = ()
    # The allowlist file's section for this workspace (`projects:`).
    project_allow: tuple[Rule, ...] = ()
    project_deny: tuple[Rule, ...] = ()
    project_ask: tuple[Rule, ...] = ()

    @property
    def deny(self) -> tuple[Rule, ...]:
        """Deny rules: config, the allowlist file, this project; any of them beats allow."""
        return self.config_deny + self.file_deny + self.project_deny

    @property
    def allow(self) -> tuple[Rule, ...]:
        """Allow rules: config, allowlist file, this project, then session approvals."""
        return self.config_allow + self.file_allow + self.project_allow + self.session_allow

    @property
    def ask(self) -> tuple[Rule, ...]:
        """Ask rules (docs/SPEC.md §4.8): config, the allowlist file, this project."""
        return self.config_ask + self.file_ask + self.project_ask


@dataclass(frozen=True)
class Context:
    """Everything `decide` may look at."""

    tools: Mapping[str, ToolFacts]
    rules: RuleSet = field(default_factory=RuleSet)
    autonomy: Autonomy = Autonomy.CAUTIOUS
    mode: Mode = Mode.EVENT_BASED
    workspace: str = "."
    # What the sandbox and the checkpoints contain in this session (the contained tier).
    containment: Containment = field(default_factory=Containment)
    # The command names PATH resolves to the workspace's own programs (the runtime reads it).
    programs: ProgramPath = field(default_factory=ProgramPath)
