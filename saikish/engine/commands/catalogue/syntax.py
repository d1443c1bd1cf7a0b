"""Reading the *.cat lines: settings, option lines and their effects (README.md).

One function per kind of line; every ValueError becomes a CatalogueError naming the file
and line of the entry it is in.
"""

from __future__ import annotations

import re
from typing import Any

from saikish.engine.commands.catalogue.entries import (
    CHECKS_DIR,
    EXAMPLES,
    FLAGS,
    PRINTS_ENV,
    RISKS,
    ROLES,
    VALUE_EFFECTS,
    CatalogueError,
    Effect,
    Entry,
    Option,
    Role,
    ValueRule,
)
from saikish.types import Risk


def parse_entry(filename: str, first_line: int, lines: list[str],
                words: tuple[str, ...] = ()) -> Entry:
    """An Entry from its block of lines; CatalogueError naming file and line."""
    settings: dict[str, object] = {"flags": set()}
    options: list[Option] = []
    for offset, raw in enumerate(lines, 1):
        if raw.lstrip().startswith(EXAMPLES):
            continue  # kept raw: only the catalogue's check judges examples (examples.py)
        where = f"{filename}:{first_line + offset}"
        text = strip_comment(raw)
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


def strip_comment(line: str) -> str:
    # '#' starts a comment outside quotes; option spellings never hold '#'.
    out, quoted = [], False
    for char in line:
        if char == '"':
            quoted = not quoted
        if char == "#" and not quoted:
            break
        out.append(char)
    return "".join(out).strip()


# Settings that are a reason in quotes: `runs-project "why"`, `finds-repository "why"`.
_WHY_SETTINGS = {"runs-project": "project", "finds-repository": "repository"}


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
    elif key in _WHY_SETTINGS and _quoted(rest):
        settings[_WHY_SETTINGS[key]] = _quoted(rest)
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
    if word not in RISKS:
        raise ValueError(f"risk is one of {', '.join(RISKS)}, not {word!r}")
    return RISKS[word]


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
        elif word in RISKS:
            risk = _higher(risk, RISKS[word])
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
        repository=_text(settings.get("repository")),
        key_operands=_listed(settings, "key-operand"),
        shorts=shorts, longs=longs)


def _listed(settings: dict[str, object], key: str) -> tuple[Any, ...]:
    listed = settings.get(key, ())
    assert isinstance(listed, (list, tuple))
    return tuple(listed)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
