"""The few errors saikish raises; the CLI turns each into one line and an exit code."""

from __future__ import annotations

from pathlib import Path


class SaikishError(Exception):
    """A problem the person can fix; shown as one line, never a traceback."""

    exit_code = 2


class ConfigError(SaikishError):
    """A bad agent.yml (or allowlist) value, with the file, line and key it is at."""

    def __init__(self, message: str, path: Path | str | None = None,
                 line: int | None = None, key: str | None = None) -> None:
        self.path, self.line, self.key, self.detail = path, line, key, message
        where = str(path) if path else "config"
        if line is not None:
            where += f":{line}"
        if key:
            where += f": {key}"
        super().__init__(f"{where}: {message}")


class RuleError(SaikishError):
    """A rule that does not parse; `origin` says where it came from."""

    def __init__(self, message: str, origin: str = "") -> None:
        self.origin = origin
        super().__init__(f"{origin}: {message}" if origin else message)


class UsageError(SaikishError):
    """A command line that does not make sense."""


class ModelError(SaikishError):
    """The model could not be reached or answered with an error."""

    exit_code = 1

    def __init__(self, message: str, *, retryable: bool = False, partial: str = "",
                 kind: str = "") -> None:
        self.retryable = retryable
        self.partial = partial
        self.kind = kind  # what went wrong, as models/http_errors.py classifies it
        super().__init__(message)
