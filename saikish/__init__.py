"""saikish: an interactive terminal agent shell that asks before anything changes.

The public Python API (docs/SPEC.md §7.3). Names are imported on first use, so
`saikish --version` does not pay for the whole package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from saikish.errors import ConfigError, ModelError, RuleError, SaikishError, UsageError
    from saikish.events import (
        CallDecided,
        CallFinished,
        CallProgress,
        CallProposed,
        CallStarted,
        Compacted,
        ErrorOccurred,
        Event,
        EventBus,
        FilesChanged,
        Notice,
        RetryNotice,
        RunEnded,
        TextDelta,
        TurnEnded,
        TurnStarted,
        UsageReported,
    )
    from saikish.runtime.agent import Agent, RunResult
    from saikish.runtime.approval import (
        ApprovalRequest,
        Approver,
        AskReason,
        ConfirmHooks,
        DeadlineApprover,
        NoTerminalApprover,
    )
    from saikish.runtime.opening import SessionOptions
    from saikish.tools.base import Tool, ToolOutput
    from saikish.tools.function import ToolContext, Toolset, tool
    from saikish.tools.sandbox.launcher import SandboxMode
    from saikish.types import Autonomy, Decision, Mode, Outcome, Risk, Source, ToolCall, ToolResult

_HOMES = {
    "saikish.runtime.agent": ("Agent", "RunResult"),
    "saikish.runtime.approval": ("ApprovalRequest", "Approver", "AskReason", "ConfirmHooks",
                                 "DeadlineApprover", "NoTerminalApprover"),
    "saikish.runtime.opening": ("SessionOptions",),
    "saikish.tools.sandbox.launcher": ("SandboxMode",),
    "saikish.errors": ("ConfigError", "ModelError", "RuleError", "SaikishError", "UsageError"),
    "saikish.events": ("CallDecided", "CallFinished", "CallProgress", "CallProposed",
                       "CallStarted", "Compacted", "ErrorOccurred", "Event", "EventBus",
                       "FilesChanged", "Notice", "RetryNotice", "RunEnded", "TextDelta",
                       "TurnEnded", "TurnStarted",
                       "UsageReported"),
    "saikish.tools.base": ("Tool", "ToolOutput"),
    "saikish.tools.function": ("ToolContext", "Toolset", "tool"),
    "saikish.types": ("Autonomy", "Decision", "Mode", "Outcome", "Risk", "Source", "ToolCall",
                      "ToolResult"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}
__all__ = [
    "__version__",
    "Agent", "ApprovalRequest", "Approver", "AskReason", "Autonomy", "CallDecided", "CallFinished",
    "CallProgress", "CallProposed", "CallStarted", "Compacted", "ConfigError", "ConfirmHooks",
    "DeadlineApprover",
    "Decision", "ErrorOccurred", "Event", "EventBus", "FilesChanged", "Mode", "ModelError",
    "NoTerminalApprover", "Notice", "Outcome", "RetryNotice", "Risk", "RuleError", "RunEnded",
    "RunResult", "SaikishError", "SandboxMode", "SessionOptions", "Source", "TextDelta",
    "Tool", "ToolCall", "ToolContext",
    "ToolOutput", "ToolResult", "Toolset", "TurnEnded", "TurnStarted", "UsageError",
    "UsageReported", "tool",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'saikish' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
