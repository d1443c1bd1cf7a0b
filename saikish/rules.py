"""Permission rules (docs/SPEC.md §4.4): parse "Bash(git diff *)" or {tool, when} and match them.

Matching is on parsed words, never on the raw command string: the shell
module splits a command into simple commands first, and a Bash rule is asked
about one simple command's argv at a time.
"""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import functools
import json
import os
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from saikish.claude_names import CLAUDE_ALIASES, CLAUDE_ONLY_TOOLS, claude_path
from saikish.errors import RuleError
from saikish.records import quick

BASH = "bash"
# Arguments whose values are file paths: normalised against the workspace.
PATH_ARGS = frozenset({"path", "file_path", "file", "directory", "dir", "cwd"})
_TOOL_PATTERN = re.compile(r"^[A-Za-z0-9_.*?\[\]!-]+$")
# `mcp__SERVER` alone: a rule for every tool of that MCP server (docs/SPEC.md §7.1).
_MCP_SERVER = re.compile(r"mcp__(?:(?!__)[A-Za-z0-9_-])+")
_ARGUMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@quick
@dataclass(frozen=True)
class Rule:
    """One allow or deny rule and where it came from."""

    tool: str
    # Bash word patterns; None means every command (a bare tool rule).
    words: tuple[str, ...] | None = None
    # True when the rule ends in "*" or ":*": any further words, also none.
    prefix: bool = False
    # Claude Code's "test:*" also matches the word "test:unit" in last position.
    colon_word: str | None = None
    when: tuple[tuple[str, str], ...] = ()
    text: str = ""
    origin: str = ""
    # A Claude Code name (`Edit`, `Read`, `WebFetch`): exactly the saikish tools it covers
    # (none for a tool saikish lacks). None: `tool` is the pattern, as written.
    tools: tuple[str, ...] | None = None

    @property
    def is_bash(self) -> bool:
        """True for a rule that can cover bash commands."""
        return fnmatch.fnmatchcase(BASH, self.tool)

    def matches_tool(self, name: str, arguments: Mapping[str, Any], workspace: str,
                     deny: bool = False) -> bool:
        """True when this rule covers a whole (non-bash) call of tool `name`.

        `deny` for deny and ask rules, which must catch a call when unsure: one element of
        a list argument matching is enough, and a path-like value matches spelled any way.
        An allow rule must match every element, and never spans a path it does not name.
        """
        if not self.names_tool(name) or self.words is not None:
            return False
        return all(
            _arg_matches(key, glob, arguments.get(key), workspace, deny)
            for key, glob in self.when
        )

    def names_tool(self, name: str) -> bool:
        """True when the rule's tool pattern covers `name`; `mcp__git` covers all of git's."""
        if self.tools is not None:
            return name in self.tools
        if fnmatch.fnmatchcase(name, self.tool):
            return True
        server = _MCP_SERVER.fullmatch(self.tool)
        return server is not None and name.startswith(self.tool + "__")

    def matches_argv(self, argv: Sequence[str], named: Sequence[int] = ()) -> bool:
        """True when this rule covers the simple command `argv`.

        `named` are the indexes of words that raise the command's risk (sort -o, an
        unknown option): the rule must spell each of them out, never cover them with a
        glob or a trailing `*` (docs/SPEC.md §4.7).
        """
        if not self.is_bash or self.when:
            return False
        if self.words is None:
            return not named
        if not _words_match(self.words, self.prefix, self.colon_word, tuple(argv)):
            return False
        # A raising word the rule cannot see (beyond argv) is never covered.
        return all(index < len(argv) and self.names(index, argv[index]) for index in named)

    def names(self, index: int, word: str) -> bool:
        """True when the rule's word at `index` spells out `word`'s option literally."""
        if self.words is None or index >= len(self.words):
            return False
        pattern = self.words[index]
        fixed = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
        needed = word.split("=", 1)[0] + "=" if word.startswith("--") and "=" in word else word
        return fixed.startswith(needed)

    def to_yaml(self) -> str | dict[str, Any]:
        """The form this rule takes in a YAML file."""
        if self.when:
            return {"tool": self.tool, "when": dict(self.when)}
        return self.text

    def __str__(self) -> str:
        return self.text


def rule_texts(rules: Sequence[Rule]) -> str:
    """Rules as a person reads them: their texts, comma-separated."""
    return ", ".join(rule.text for rule in rules)


def parse_rule(value: Any, origin: str = "") -> Rule:
    """A Rule from its string or mapping form; RuleError naming `origin` if malformed."""
    if isinstance(value, str):
        return _claude_alias(_parse_string(value.strip(), origin))
    if isinstance(value, Mapping):
        return _claude_alias(_parse_mapping(value, origin))
    raise RuleError(
        f"a rule is a string such as 'Bash(git diff *)' or a mapping with 'tool' "
        f"and 'when', not {type(value).__name__}",
        origin,
    )


def _claude_alias(rule: Rule) -> Rule:
    """A rule naming a Claude Code tool, with the saikish tools it covers (maybe none)."""
    if rule.tool in CLAUDE_ALIASES:
        return replace(rule, tools=CLAUDE_ALIASES[rule.tool])
    if rule.tool in CLAUDE_ONLY_TOOLS:
        return replace(rule, tools=())
    return rule


def bash_rule_for(words: Sequence[str], prefix: bool) -> str:
    """The rule text that covers `words` (and any further words when `prefix`)."""
    inner = " ".join(shlex.quote(w) if _needs_quote(w) else w for w in words)
    return f"Bash({inner} *)" if prefix else f"Bash({inner})"


def _needs_quote(word: str) -> bool:
    return word == "" or _QUOTE_NEEDED.search(word) is not None


_QUOTE_NEEDED = re.compile(r"[\s'\"()\\]")


@functools.lru_cache(maxsize=4096)
def _parse_string(text: str, origin: str) -> Rule:
    if not text:
        raise RuleError("empty rule", origin)
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.*?-]*)\((.*)\)", text, re.DOTALL)
    if match:
        tool, inner = match.group(1), match.group(2).strip()
        if tool in CLAUDE_ONLY_TOOLS:  # WebFetch(domain:x): a tool saikish lacks, warned
            return Rule(tool=tool, text=text, origin=origin)
        if tool in CLAUDE_ALIASES and inner and "=" not in inner:  # Edit(src/**): a path
            return Rule(tool=tool, when=(("path", claude_path(inner)),), text=text,
                        origin=origin)
        if tool.lower() != BASH:
            return _parse_arguments(tool, match.group(2), text, origin)
        return _parse_bash(match.group(2), text, origin)
    if not _TOOL_PATTERN.match(text):
        raise RuleError(
            f"'{text}' is not a rule: write a tool name (globs allowed, e.g. mcp__github__*) "
            f"or Bash(command words)",
            origin,
        )
    tool = BASH if text.lower() == BASH else text
    return Rule(tool=tool, text=text, origin=origin)


def _parse_bash(inner: str, text: str, origin: str) -> Rule:
    inner = inner.strip()
    colon_word = None
    if inner.endswith(":*"):
        inner = inner[:-2]
        prefix = True
        colon = True
    else:
        colon = False
        prefix = False
    try:
        # With no quote or backslash, shlex.split() only splits at its blanks: the fast way.
        words = shlex.split(inner) if _QUOTING.search(inner) else \
            [w for w in _SHLEX_BLANKS.split(inner) if w]
    except ValueError as exc:
        raise RuleError(f"'{text}': {exc}", origin) from None
    if not colon and words and words[-1] == "*":
        words, prefix = words[:-1], True
    if colon and words:
        colon_word = words[-1] + ":*"
    if not words and not prefix:
        raise RuleError(f"'{text}': Bash() needs the command words, e.g. Bash(git status)", origin)
    # Only a word with glob characters becomes a regex (word_match compares the rest as
    # text), so only such a word can fail to be a glob.
    for word in filter(_GLOBBY.search, (*words, colon_word or "")):
        try:
            _word_regex(word)
        except re.error as exc:  # `[2-1]`: said here, never a traceback when a call is checked
            raise RuleError(f"'{text}': '{word}' is not a glob: {exc}", origin) from None
    return Rule(tool=BASH, words=tuple(words), prefix=prefix, colon_word=colon_word,
                text=text, origin=origin)


def _parse_arguments(tool: str, inner: str, text: str, origin: str) -> Rule:
    """'write_file(path=docs/*.md)': the string form of {tool, when}."""
    when: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in inner.split(","))):
        key, sep, glob = item.partition("=")
        if not sep or not _ARGUMENT.fullmatch(key.strip()):
            raise RuleError(
                f"'{text}': write {tool}(ARG=GLOB, ...), e.g. write_file(path=docs/**/*.md)",
                origin)
        when[key.strip()] = glob.strip()
    return _parse_mapping({"tool": tool, "when": when}, origin)


def _parse_mapping(value: Mapping[Any, Any], origin: str) -> Rule:
    unknown = set(value) - {"tool", "when"}
    if unknown:
        raise RuleError(
            f"unknown key(s) {', '.join(sorted(map(str, unknown)))} in rule; "
            f"a mapping rule has 'tool' and optional 'when'",
            origin,
        )
    tool = value.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        raise RuleError("a mapping rule needs 'tool: NAME'", origin)
    when = value.get("when") or {}
    if not isinstance(when, Mapping) or not all(
        isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in when.items()
    ):
        raise RuleError("'when' maps argument names to globs, e.g. {path: 'docs/**'}", origin)
    if tool.lower() == BASH and when:
        # A glob on the raw command string would match 'git diff; rm -rf /'.
        raise RuleError("bash commands are matched by words: use Bash(...) rules", origin)
    pairs = tuple(sorted((k, str(v)) for k, v in when.items()))
    text = f"{tool}({', '.join(f'{k}={v}' for k, v in pairs)})" if pairs else tool
    if not pairs:
        return _parse_string(tool.strip(), origin)
    return Rule(tool=tool.strip(), when=pairs, text=text, origin=origin)


def _words_match(patterns: tuple[str, ...], prefix: bool, colon_word: str | None,
                 argv: tuple[str, ...]) -> bool:
    if len(argv) < len(patterns) or (not prefix and len(argv) != len(patterns)):
        return False
    for index, (pattern, word) in enumerate(zip(patterns, argv, strict=False)):
        last = index == len(patterns) - 1
        if word_match(word, pattern):
            continue
        if last and colon_word and word_match(word, colon_word):
            continue
        return False
    return True


def word_match(word: str, pattern: str) -> bool:
    """One word against one rule word: a glob never spans '/' nor steps out through '..'."""
    if not _GLOBBY.search(pattern):
        return word == pattern
    if _DOTDOT.search(word) and not _DOTDOT.search(pattern):
        return False
    return _word_regex(pattern).fullmatch(word) is not None


_GLOBBY = re.compile(r"[*?\[]")
_QUOTING = re.compile(r"['\"\\]")
_SHLEX_BLANKS = re.compile(r"[ \t\r\n]+")  # shlex's whitespace, not every Unicode space
_DOTDOT = re.compile(r"(?:^|/)\.\.(?:/|$)")


@functools.lru_cache(maxsize=1024)
def _word_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                negated = pattern[i + 1] in "!^"  # bash reads both as "not"
                body = _set_body(pattern[i + 1 + negated:end])
                out.append("[^" + body + "/]" if negated else "[" + body + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _set_body(text: str) -> str:
    """A glob's bracket contents as a regex set's: every character literal but `-` ranges
    (`\\`, `[`, `&`, `~`, `|` and `^` would be set syntax to `re`)."""
    return re.sub(r"([\\\[&~|^])", r"\\\1", text)


def _arg_matches(key: str, glob: str, value: Any, workspace: str, deny: bool) -> bool:
    if value is None:
        return False
    if isinstance(value, (list, tuple)):  # allow: every element; deny and ask: any element
        matches = [_arg_matches(key, glob, v, workspace, deny) for v in value]
        return bool(matches) and (any(matches) if deny else all(matches))
    if isinstance(value, dict):
        return deny  # a rule's glob cannot read an object: only a deny or ask may hold
    text = json.dumps(value) if isinstance(value, bool) else str(value)  # true, as written
    if key in PATH_ARGS:
        return path_rule_match(text, glob, workspace, deny)
    if _looks_like_path(text):
        # Not known to be a path (an MCP tool's `files`), yet it may be one: matched as a
        # path ('src/**' never covers 'src/../../etc', '*.md' never spans a '/'), and a
        # deny also by its letters, whichever catches it.
        return path_rule_match(text, glob, workspace, deny) or (deny and fnmatch.fnmatchcase(
            text, glob))
    return fnmatch.fnmatchcase(text, glob)


def _looks_like_path(text: str) -> bool:
    return text.startswith("~") or ("/" in text and "://" not in text) or _DOTDOT.search(
        text) is not None


def path_rule_match(path: str, glob: str, workspace: str, deny: bool = False) -> bool:
    """A path argument against a rule's glob, both anchored at the workspace.

    A relative glob (`docs/**`, `**`) only ever matches inside the workspace; a path
    outside it matches only a glob that names that place (`/etc/**`, `~/notes/*`). An
    allow rule reaches into `.git` only when its glob names `.git`.
    """
    target = workspace_relative(path, workspace)
    if not deny and in_git_dir(target) and not names_git_dir(glob):
        return False
    if os.path.isabs(target) != _absolute_glob(glob):
        return False
    if os.path.isabs(target):
        glob = os.path.expanduser(glob)
    return path_glob_match(target, glob)


def _absolute_glob(glob: str) -> bool:
    return glob.startswith(("/", "~"))


def in_git_dir(path: str) -> bool:
    """A path in a repository's `.git` (or the `.git` file of a worktree): git runs the
    hooks found there and the programs its config names (core.fsmonitor runs at the next
    `git status`), so a write there is code that runs later, judged like a write outside.
    A glob that can match `.git` (`.gi?`, `.[g]it`, `*`) counts."""
    return any(part == GIT_DIR or (_GLOB_CHARS.search(part) is not None and
                                   any(fnmatch.fnmatchcase(GIT_DIR, p) for p in _braces(part)))
               for part in path.lower().split(os.sep))


def _braces(word: str, limit: int = 64) -> list[str]:
    """bash's brace expansion of one path part (`.{git,x}` -> .git, .x), at most `limit`
    words; a sequence (`{a..z}`) or too many words stand for anything (`*`)."""
    if _BRACE_SEQUENCE.search(word):
        return ["*"]
    match = _BRACE_LIST.search(word)  # a group with a comma; `{}` alone is a literal
    if match is None:
        return [word]
    head, tail = word[:match.start()], word[match.end():]
    words: list[str] = []
    for option in match.group(1).split(","):
        words.extend(_braces(head + option + tail, limit))
        if len(words) > limit:
            return ["*"]
    return words


def names_git_dir(glob: str) -> bool:
    """A rule's glob names `.git` itself (`.git/**`, `**/.git`), not `.git*` or `**`."""
    return GIT_DIR in glob.lower().split("/")


GIT_DIR = ".git"
_GLOB_CHARS = re.compile(r"[*?\[{]")
_BRACE_LIST = re.compile(r"\{([^{}]*,[^{}]*)\}")
_BRACE_SEQUENCE = re.compile(r"\{[^{}]*\.\.[^{}]*\}")


def workspace_relative(path: str, workspace: str) -> str:
    """`path` resolved against the workspace: relative inside it, absolute outside.

    Symlinks and '..' are resolved first, so 'docs/../secret' or a link out
    of the workspace never matches a glob meant for the workspace.
    """
    joined = os.path.join(workspace, os.path.expanduser(path))
    # POSIX keeps a leading '//' ('//etc/passwd'); it names the same file as '/etc/passwd'.
    joined = "/" + joined.lstrip("/") if joined.startswith("//") else joined
    plain, root = os.path.abspath(joined), os.path.abspath(workspace)
    if plain != root and not plain.startswith(root.rstrip(os.sep) + os.sep):
        return plain  # outside by its words alone: no symlink can bring it back inside
    try:
        full, root = real_path(joined), workspace_root(root)
    except (OSError, ValueError):  # an unreadable /proc entry, a NUL: judge the plain path
        full = plain.replace("\0", "")
    if full == root:
        return "."
    if full.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, root)
    return full


@functools.lru_cache(maxsize=64)
def workspace_root(workspace: str) -> str:
    """The workspace as the file system sees it, links resolved (once per process: every
    decision measures paths against the same root)."""
    return os.path.realpath(os.path.abspath(workspace))


# Paths resolved during one decision (`one_look`): a call's parts ask about the same paths
# several times (rules, the read boundary, containment, proposals), and nothing runs between.
_LOOKED: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "saikish_resolved", default=None)


@contextlib.contextmanager
def one_look() -> Iterator[None]:
    """Within it, each path is resolved against the file system once (one decision, or a
    whole `saikish check --batch`, where nothing runs between the decisions). Inside an
    outer one, the outer one's answers are kept."""
    if _LOOKED.get() is not None:
        yield
        return
    token = _LOOKED.set({})
    try:
        yield
    finally:
        _LOOKED.reset(token)


def real_path(path: str) -> str:
    """os.path.realpath(path), looked up once per decision; raises as it does (OSError for
    an unreadable /proc entry, ValueError for a NUL)."""
    looked = _LOOKED.get()
    if looked is None:
        return os.path.realpath(path)
    full = looked.get(path)
    if full is None:
        full = looked[path] = os.path.realpath(path)
    return full


def path_glob_match(path: str, glob: str) -> bool:
    """Gitignore-style glob: '*' stays within a directory, '**/' spans any depth."""
    return _glob_regex(glob).fullmatch(path) is not None


@functools.lru_cache(maxsize=512)
def _glob_regex(glob: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))
