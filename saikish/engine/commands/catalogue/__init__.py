"""The command catalogue: what saikish knows about each command, read from *.cat data files.

The format is documented in README.md beside this file (docs/SPEC.md §4.7). Files are
split into entries once; an entry is parsed the first time a command needs it, so a
`check` of one command pays only for the entries it uses.
"""

from __future__ import annotations

import bisect
import dataclasses
import enum
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saikish.errors import SaikishError
from saikish.types import Risk

HERE = Path(__file__).resolve().parent
# Headers and aka lines start at the beginning of a line, so a plain scan finds them.
# Searched with a leading newline, not `^` and MULTILINE: a literal prefix lets the regex
# engine skip ahead, which makes reading the ~900 KB catalogue at start several times faster.
_AKA = re.compile(r"\naka[ \t]+([^\n]*)")
_HEADERS = re.compile(r"\n\[([^\]\n]+)\]")
_ESCALATION = re.compile(r"\n[ \t]*risk[ \t]+escalation\b")
_RISKS = {"read": Risk.READ_ONLY, "build": Risk.BUILD_TEST, "write": Risk.WRITE,
          "network": Risk.NETWORK, "destructive": Risk.DESTRUCTIVE, "unknown": Risk.UNKNOWN,
          "escalation": Risk.ESCALATION}
ROLES = frozenset({"path", "text", "write", "cmd", "script", "remote", "var", "assign"})
# Roles after which every further word belongs to what runs, not to this command.
TERMINAL_ROLES = frozenset({"cmd", "script", "remote"})
# Example lines (`quiet git log`, `asks git push -f "forces"`): skipped when loading.
EXAMPLES = ("quiet ", "asks ")
FLAGS = frozenset({"numbers", "bundled", "open", "subcommands", "shell", "evaluates",
                    "appends", "separate", "glued", "fetches", "underscores",
                   "operand-ends-options"})
# The checkers a `check NAME` line may name: one module each in this folder's sibling
# package (saikish/engine/commands/checks/NAME.py), listed without importing them.
CHECKS_DIR = HERE.parent / "checks"
# `prints-env MODE`: when the command hands environment variables to its output.
PRINTS_ENV = frozenset({"always", "bare", "unless-runs", "named"})
# `if-value GLOB... EFFECT "why"`: what a matching operand or option value does.
# (`prints-env`: the value names something that prints the environment, `npm run env`.)
VALUE_EFFECTS = {"exec": Risk.UNKNOWN, "network": Risk.NETWORK, "write": Risk.WRITE,
                 "destructive": Risk.DESTRUCTIVE, "unknown": Risk.UNKNOWN,
                 "prints-env": Risk.READ_ONLY}


class CatalogueError(SaikishError):
    """A catalogue entry that does not parse: names the file and line."""


class Effect(enum.Enum):
    """What an option does besides its risk (README.md, 'Effects')."""

    EXEC = "exec"
    CONFIG = "config"
    WRITES = "writes"
    READS = "reads"
    WRITES_OPERANDS = "writes-operands"
    RUNS = "runs"
    RUNS_REST = "runs-rest"
    RUNS_SCRIPT = "runs-script"
    CODE_OPERAND = "code-operand"
    ENDS_OPTIONS = "ends-options"
    SETS = "sets"
    GIVES_PATTERN = "gives-pattern"
    LISTS = "lists"
    VERSION = "version"
    CHDIR = "chdir"
    RUNS_MODULE = "runs-module"
    READS_AT = "reads-at"
    CODE_FILE = "code-file"
    AS_USER = "as-user"
    ARGV0 = "argv0"
    NAMES_FROM = "names-from"
    PRINTS_ENV = "prints-env"
    OPERANDS = "operands"


@dataclass(frozen=True)
class Role:
    """One operand role with its quantifier ('', '*', '+', '?')."""

    name: str
    quantity: str = ""


@dataclass(frozen=True)
class ValueRule:
    """`if-value GLOB... EFFECT "why"`: an operand or option value matching one of the
    globs (case-insensitive) names a program, a remote code source or a local file."""

    globs: tuple[str, ...]
    risk: Risk
    why: str
    # The value runs a program: no rule covers it, and a value built at run time may too.
    runs: bool = False
    # The value makes the command print every environment variable (`npm run env`).
    prints_env: bool = False


@dataclass(frozen=True)
class Option:
    """One option of a command: its spellings, how many values it takes, what it does."""

    spellings: tuple[str, ...]
    # Per spelling: the values it takes (0 for a flag; -1 for "up to a ';' or '+' word",
    # find -exec), and whether the value is optional and only ever attached (-i.bak).
    forms: tuple[tuple[int, bool], ...] = ()
    risk: Risk | None = None
    effects: frozenset[Effect] = frozenset()
    why: str = ""
    # The names of its values (FILE, NAME...): `reads`/`writes` apply to the ones naming
    # a file, path or directory, or to the first value when none does.
    metavars: tuple[str, ...] = ()
    # `operands=ROLE,...`: with this option, the operands have these roles instead.
    operands: tuple[Role, ...] = ()

    def file_values(self, count: int) -> list[int]:
        """Which of `count` values `reads`/`writes` apply to."""
        named = [i for i, m in enumerate(self.metavars[:count])
                 if any(k in m.upper() for k in ("FILE", "PATH", "DIR"))]
        return named or ([0] if count else [])

    def form(self, spelling: str) -> tuple[int, bool]:
        """(values taken, optional) for one of this option's spellings."""
        return self.forms[self.spellings.index(spelling)]

    @property
    def name(self) -> str:
        """The spelling used in messages and deny matching: the long one when there is one."""
        longs = [s for s in self.spellings if s.startswith("--")]
        return (longs or list(self.spellings))[0]

    @functools.cached_property
    def raises(self) -> bool:
        """True when using this option changes what the command does beyond its base.

        A list of names read from a file (`names-from`) is no change here: the finding
        of its own use asks, and a word built at run time that could spell it is already
        a read of a place only known at run time."""
        harmless = {Effect.READS, Effect.ENDS_OPTIONS, Effect.SETS, Effect.GIVES_PATTERN,
                    Effect.LISTS, Effect.VERSION, Effect.CHDIR, Effect.READS_AT,
                    Effect.AS_USER, Effect.NAMES_FROM}
        if self.operands and all(r.name in ("path", "text") for r in self.operands):
            harmless.add(Effect.OPERANDS)
        return self.risk is not None or bool(self.effects - harmless)


@dataclass(frozen=True)
class Entry:
    """One command or subcommand, as its catalogue entry describes it."""

    words: tuple[str, ...]
    origin: str
    risk: Risk = Risk.UNKNOWN
    style: str = "gnu"
    flags: frozenset[str] = frozenset()
    global_options_anywhere: bool = False
    default_sub: str | None = None
    # (N, risk, why, operands not counted): with N or more operands the risk rises.
    if_operands: tuple[int, Risk, str, str | None] | None = None
    stdin_code: bool = False
    operands: tuple[Role, ...] = (Role("path", "*"),)
    options: tuple[Option, ...] = ()
    # Another entry whose grammar this one is (`[python -m pytest]` is like `[pytest]`).
    like: str | None = None
    # `check NAME`: checker modules that read what the words alone do not say.
    checks: tuple[str, ...] = ()
    # `if-value`: operand and option values that name programs or remote code.
    value_rules: tuple[ValueRule, ...] = ()
    # `runs-project "why"`: it runs the project's own configuration or code.
    project: str | None = None
    # `prints-env MODE`: when it prints environment variables (README.md).
    prints_env: str | None = None
    # `key-operand KEY ROLE`: operands spelled KEY=VALUE whose value has ROLE (dd of=).
    key_operands: tuple[tuple[str, str], ...] = ()
    shorts: dict[str, Option] = field(default_factory=dict, compare=False)
    longs: dict[str, Option] = field(default_factory=dict, compare=False)

    def has(self, flag: str) -> bool:
        """True when the entry sets the setting `flag` (numbers, open, subcommands...)."""
        return flag in self.flags

    @functools.cached_property
    def changing(self) -> tuple[Option, ...]:
        """The options that change what the command does in any way (effects or risk)."""
        return tuple(o for o in self.options if o.raises)

    @functools.cached_property
    def raising(self) -> tuple[Option, ...]:
        """The options a rule must name: they add a kind of effect, destroy, or run code."""
        return tuple(o for o in self.options if self.raised_by(o))

    def raised_by(self, option: Option) -> bool:
        """True when `option` adds a kind of effect this command does not have on its own
        (curl -o writes), destroys, or runs a program (docs/SPEC.md §4.7); an option of the
        command's own kind (tar -x for tar) is no raise."""
        risk = option.risk
        return risk is not None and risk is not Risk.READ_ONLY and (
            risk is not self.risk or risk.rank >= Risk.DESTRUCTIVE.rank
            or bool(option.effects & {Effect.EXEC, Effect.CONFIG}))


@dataclass(frozen=True)
class _Block:
    """An entry's text, not yet parsed: text[start:end] of one file."""

    filename: str
    text: str = field(repr=False)
    start: int
    end: int
    words: tuple[str, ...]

    @property
    def line(self) -> int:
        """The line number of the entry's header (the text starts with an added newline)."""
        return self.text.count("\n", 0, self.start)

    @property
    def lines(self) -> list[str]:
        """The entry's lines after its header."""
        return self.text[self.start:self.end].split("\n")[1:]


class Catalogue:
    """Every entry of the *.cat files in a folder, parsed on first use."""

    def __init__(self, folder: Path = HERE) -> None:
        self.folder = folder
        self._blocks: dict[str, _Block] | None = None
        self._entries: dict[str, Entry | None] = {}
        self.errors: list[str] = []

    def get(self, *words: str) -> Entry | None:
        """The entry for a command (`get("sort")`) or subcommand (`get("git", "push")`)."""
        key = " ".join(words)
        if key in self._entries:
            return self._entries[key]
        block = self.blocks().get(key)
        entry = None
        if block is not None:
            try:
                entry = parse_entry(block.filename, block.line, block.lines, block.words)
            except CatalogueError as exc:  # a broken entry: the command is simply unknown
                self.errors.append(str(exc))
            if entry is not None and entry.like:
                self._entries[key] = None  # a loop of `like`s ends unknown, not recursing
                target = self.get(*entry.like.split())
                # A target with subcommands keeps its words: they name its subcommand
                # entries (`python -m pip list` is `[pip list]`).
                entry = None if target is None else target if target.has("subcommands") \
                    else dataclasses.replace(target, words=entry.words)
        self._entries[key] = entry
        return entry

    def blocks(self) -> dict[str, _Block]:
        """Entry name (and aka names) -> (file, first line, lines)."""
        if self._blocks is None:
            self._blocks = {}
            for path in sorted(self.folder.glob("*.cat")):
                self._split(path)
        return self._blocks

    def escalators(self) -> frozenset[str]:
        """Every command name (akas too) whose entry runs as another user (`risk
        escalation`: sudo, su, doas...): the one list of escalation (docs/SPEC.md §4.1)."""
        names = set()
        for name, block in self.blocks().items():
            if " " not in name and _ESCALATION.search(block.text, block.start, block.end):
                entry = self.get(name)
                if entry is not None and entry.risk is Risk.ESCALATION:
                    names.add(name)
        return frozenset(names)

    def names(self) -> list[str]:
        """Every entry's name (not its aliases), in file order."""
        return list(dict.fromkeys(" ".join(b.words) for b in self.blocks().values()))

    def _split(self, path: Path) -> None:
        # Runs once per process over every file, so only regexes run over the whole text;
        # an entry's lines are cut out when it is first used.
        assert self._blocks is not None
        text = "\n" + path.read_text(encoding="utf-8")  # every header follows a newline
        headers = list(_HEADERS.finditer(text))
        positions = [m.start() for m in headers]
        blocks = []
        for index, match in enumerate(headers):
            end = positions[index + 1] if index + 1 < len(headers) else len(text)
            block = _Block(path.name, text, match.end(), end, tuple(match.group(1).split()))
            blocks.append(block)
            self._blocks.setdefault(" ".join(block.words), block)
        for aka in _AKA.finditer(text):
            index = bisect.bisect_right(positions, aka.start()) - 1
            if index < 0:
                continue
            words = list(blocks[index].words)
            for alias in _strip_comment(aka.group(1)).split():
                self._blocks.setdefault(" ".join(words[:-1] + [alias]), blocks[index])


def parse_entry(filename: str, first_line: int, lines: list[str],
                words: tuple[str, ...] = ()) -> Entry:
    """An Entry from its block of lines; CatalogueError naming file and line."""
    settings: dict[str, object] = {"flags": set()}
    options: list[Option] = []
    for offset, raw in enumerate(lines, 1):
        if raw.lstrip().startswith(EXAMPLES):
            continue  # kept raw: only the catalogue's check judges examples (examples.py)
        where = f"{filename}:{first_line + offset}"
        text = _strip_comment(raw)
        if not text:
            continue
        try:
            if text.startswith(("-", "+")) and not text.startswith("--- "):
                options.append(parse_option(text))
            else:
                _setting(text, settings)
        except ValueError as exc:
            raise CatalogueError(f"{where}: {exc}") from None
    return _build(settings, options, f"{filename}:{first_line}", words)


def _strip_comment(line: str) -> str:
    # '#' starts a comment outside quotes; option spellings never hold '#'.
    out, quoted = [], False
    for char in line:
        if char == '"':
            quoted = not quoted
        if char == "#" and not quoted:
            break
        out.append(char)
    return "".join(out).strip()


def _setting(text: str, settings: dict[str, object]) -> None:
    key, _, rest = text.partition(" ")
    rest = rest.strip()
    flags = settings["flags"]
    assert isinstance(flags, set)
    if key in FLAGS and not rest:
        flags.add(key)
    elif key == "risk":
        settings["risk"] = _risk(rest)
    elif key == "aka":
        pass  # read when the file is split
    elif key == "options":
        if rest not in ("gnu", "posix", "single", "none"):
            raise ValueError(f"options is gnu, posix, single or none, not {rest!r}")
        settings["style"] = rest
    elif key == "global-options" and rest == "anywhere":
        settings["anywhere"] = True
    elif key == "default" and rest:
        settings["default"] = rest
    elif key == "like" and rest:
        settings["like"] = rest
    elif key == "stdin" and rest == "code":
        settings["stdin"] = True
    elif key == "operands":
        settings["operands"] = tuple(_role(word) for word in rest.split())
    elif key == "if-operands":
        settings["if_operands"] = _if_operands(rest)
    elif key in _LISTED:
        listed = settings.setdefault(key, [])
        assert isinstance(listed, list)
        listed.append(_LISTED[key](rest))
    elif key == "runs-project" and _quoted(rest):
        settings["project"] = _quoted(rest)
    elif key == "prints-env" and rest in PRINTS_ENV:
        settings["prints_env"] = rest
    else:
        raise ValueError(f"unknown setting {text!r}")


def _check(rest: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", rest):
        raise ValueError(f"write check NAME (a checker module's name), not {rest!r}")
    if not (CHECKS_DIR / f"{rest}.py").is_file():
        raise ValueError(f"check {rest}: there is no checker module checks/{rest}.py")
    return rest


def _value_rule(rest: str) -> ValueRule:
    why = _quoted(rest)
    words = rest.split('"', 1)[0].split()
    if len(words) < 2 or words[-1] not in VALUE_EFFECTS or not why:
        raise ValueError(f'write if-value GLOB... EFFECT "why", EFFECT one of '
                         f'{", ".join(VALUE_EFFECTS)}')
    return ValueRule(tuple(w.lower() for w in words[:-1]), VALUE_EFFECTS[words[-1]], why,
                     runs=words[-1] == "exec", prints_env=words[-1] == "prints-env")


def _key_operand(rest: str) -> tuple[str, str]:
    words = rest.split()
    if len(words) != 2 or words[1] not in ("path", "write", "text"):
        raise ValueError("write key-operand KEY ROLE, ROLE one of path, write, text")
    return words[0], words[1]


_LISTED = {"check": _check, "if-value": _value_rule, "key-operand": _key_operand}


def _risk(word: str) -> Risk:
    if word not in _RISKS:
        raise ValueError(f"risk is one of {', '.join(_RISKS)}, not {word!r}")
    return _RISKS[word]


def _role(word: str) -> Role:
    name, quantity = (word[:-1], word[-1]) if word[-1:] in "*+?" else (word, "")
    if name not in ROLES:
        raise ValueError(f"operand role is one of {', '.join(sorted(ROLES))}, not {name!r}")
    return Role(name, quantity)


def _if_operands(rest: str) -> tuple[int, Risk, str, str | None]:
    why = _quoted(rest)
    words = rest.split('"', 1)[0].split()
    except_glob = None
    if len(words) == 4 and words[2] == "except":
        except_glob = words[3]
        words = words[:2]
    if len(words) != 2 or not words[0].isdigit():
        raise ValueError('write if-operands N RISK [except GLOB] ["why"]')
    risk = Risk.UNKNOWN if words[1] in ("exec", "config") else _risk(words[1])
    return int(words[0]), risk, why, except_glob


def _quoted(text: str) -> str:
    match = re.search(r'"([^"]*)"', text)
    return match.group(1) if match else ""


_SPELLING = re.compile(
    r"^(?P<name>--?[^\s=\[]+|\+[^\s=\[]+)(?:(?P<opt>\[=[^\]]*\])|=(?P<meta>\S+))?$")


def parse_option(text: str) -> Option:
    """One option line: spellings, then effects, then an optional "why"."""
    why = _quoted(text)
    words = text.split('"', 1)[0].split()
    spellings: list[str] = []
    forms: list[tuple[int, bool]] = []
    metavars: tuple[str, ...] = ()
    risk: Risk | None = None
    effects: set[Effect] = set()
    roles: tuple[Role, ...] = ()
    for word in words:
        match = _SPELLING.match(word) if word[:1] in "-+" else None
        if match:
            spellings.append(match.group("name"))
            meta = match.group("meta") or ""
            arity = (-1 if meta.endswith("...;") else len(meta.split(","))) if meta else 0
            forms.append((arity, bool(match.group("opt"))))
            metavars = metavars or tuple(meta.split(",")) if meta else metavars
        elif word in _RISKS:
            risk = _higher(risk, _RISKS[word])
        elif word.startswith("operands="):  # jobs -x: the operands are a command
            roles = tuple(_role(r) for r in word[len("operands="):].split(","))
            effects.add(Effect.OPERANDS)
        elif word in {e.value for e in Effect}:
            effects.add(Effect(word))
        else:
            raise ValueError(f"{word!r} is neither an option spelling nor an effect")
    if not spellings:
        raise ValueError("an option line needs at least one spelling")
    if effects & {Effect.EXEC, Effect.CONFIG, Effect.ARGV0}:
        risk = _higher(risk, Risk.UNKNOWN)
    if effects & {Effect.WRITES, Effect.WRITES_OPERANDS}:
        risk = _higher(risk, Risk.WRITE)
    return Option(tuple(spellings), tuple(forms), risk, frozenset(effects), why, metavars,
                  roles)


def _higher(a: Risk | None, b: Risk) -> Risk:
    return b if a is None or b.rank > a.rank else a


def _build(settings: dict[str, object], options: list[Option], origin: str,
           words: tuple[str, ...]) -> Entry:
    flags = settings["flags"]
    assert isinstance(flags, set)
    shorts: dict[str, Option] = {}
    longs: dict[str, Option] = {}
    style = str(settings.get("style", "gnu"))
    for option in options:
        for spelling in option.spellings:
            single = style == "single" or spelling.startswith("--") or len(spelling) > 2
            table = longs if single else shorts
            key = spelling.lstrip("-+") if table is longs else spelling[1:]
            if spelling.startswith("+"):
                key = spelling
            if key in table and table[key] is not option:
                raise CatalogueError(f"{origin}: option {spelling} is listed twice")
            table[key] = option
    risk = settings.get("risk", Risk.UNKNOWN)
    assert isinstance(risk, Risk)
    operands = settings.get("operands", (Role("path", "*"),))
    assert isinstance(operands, tuple)
    if_operands = settings.get("if_operands")
    default = settings.get("default")
    like = settings.get("like")
    return Entry(
        words=words, origin=origin, risk=risk, style=style, flags=frozenset(flags),
        global_options_anywhere=bool(settings.get("anywhere")),
        default_sub=default if isinstance(default, str) else None,
        if_operands=if_operands if isinstance(if_operands, tuple) else None,
        stdin_code=bool(settings.get("stdin")), operands=operands, options=tuple(options),
        like=like if isinstance(like, str) else None,
        checks=_listed(settings, "check"), value_rules=_listed(settings, "if-value"),
        project=_text(settings.get("project")), prints_env=_text(settings.get("prints_env")),
        key_operands=_listed(settings, "key-operand"),
        shorts=shorts, longs=longs)


def _listed(settings: dict[str, object], key: str) -> tuple[Any, ...]:
    listed = settings.get(key, ())
    assert isinstance(listed, (list, tuple))
    return tuple(listed)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
