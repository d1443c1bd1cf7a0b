"""Property tests (issue 15): whatever a hand-edited file holds, only our own errors escape."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saikish.config.allowlist import Allowlist, AllowlistError, _nonempty, _texts, parse_state
from saikish.config.layers import merge, read_layer
from saikish.errors import ConfigError, RuleError
from saikish.rules import parse_rule

# Bounded so the suite stays fast; SAIKISH_FUZZ_EXAMPLES=5000 for a longer hunt.
BOUNDED = settings(max_examples=int(os.environ.get("SAIKISH_FUZZ_EXAMPLES", "200")),
                   deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ["llm", "provider", "model", "apiKey", "baseURL", "maxIterations", "timeout",
        "systemPrompt", "toolConfirmation", "mode", "autonomy", "allowedToolsStorage", "tools",
        "bashTimeout", "outputLimit", "permissions", "allow", "deny", "ask", "projects",
        "hooks", "mcpServers", "sandbox", "/tmp/p", "tool", "when", "path"]
SCALARS = ["", "~", "null", "yes", "0", "-1", "1e400", ".inf", ".nan", "9" * 400,
           "2024-13-45", "2024-01-01", "0x1F", "1:30", "!foo x", "!!binary aGk=",
           "!!python/object:os.system x", "Bash(ls *)", "Bash(", "read_file", "'quoted'",
           '"dq', "[", "]", "{", "}", "&a x", "*a", "<<: *a", "? [a, b]", "|", ">", "-",
           "cautious", "auto-approve", "write_file(path=docs/**)", "\udcff", "\x00", "é"]


@st.composite
def yaml_like(draw: st.DrawFn) -> str:
    """Lines that look like our files: keys, list items and odd scalars at odd indents."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        indent = " " * draw(st.sampled_from([0, 2, 4, 6, 1, 3]))
        shape = draw(st.sampled_from(["key", "item", "pair", "raw"]))
        key, value = draw(st.sampled_from(KEYS)), draw(st.sampled_from(SCALARS))
        lines.append({"key": f"{indent}{key}:", "item": f"{indent}- {value}",
                      "pair": f"{indent}{key}: {value}", "raw": indent + value}[shape])
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


texts = st.one_of(yaml_like(), st.text(max_size=300))


def _file(text: str) -> Path:
    directory = Path(tempfile.mkdtemp())
    path = directory / "f.yml"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    return path


@BOUNDED
@given(texts)
def test_agent_yml_loader_raises_only_config_errors(text: str) -> None:
    path = _file(text)
    try:
        layer = read_layer(path, "project")
    except ConfigError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc).strip()
        return
    merge((layer,))  # an untrusted project layer over the defaults


@BOUNDED
@given(texts)
def test_allowlist_loader_never_raises(text: str) -> None:
    state = parse_state(text, Path("allowlist.yaml"))
    assert all(error.startswith("allowlist.yaml") for error in state.errors)


RULES = ["Bash(ls *)", "read_file", "write_file(path=a/**)", "{tool: grep, when: {path: x}}",
         "'Bash(git diff:*)'"]


@st.composite
def allowlists(draw: st.DrawFn) -> str:
    """Valid hand-edited allowlists: comments, blank lines, block and flow lists, projects."""

    def rules(indent: int) -> str:
        chosen = draw(st.lists(st.sampled_from(RULES), max_size=3))
        if draw(st.booleans()):
            return " [" + ", ".join(chosen) + "]\n"
        items = "".join(f"{' ' * indent}- {r}" + draw(st.sampled_from(["", "  # why"])) + "\n"
                        for r in chosen)
        return "\n" + items

    def scope(indent: int) -> str:
        out = ""
        for section in draw(st.lists(st.sampled_from(["allow", "deny", "ask"]), unique=True)):
            out += draw(st.sampled_from(["", f"{' ' * indent}# note\n", "\n"]))
            out += f"{' ' * indent}{section}:" + rules(indent + draw(st.sampled_from([0, 2])))
        return out

    text = draw(st.sampled_from(["", "# my rules\n"])) + scope(0)
    if draw(st.booleans()):
        text += "projects:\n"
        for project in draw(st.lists(st.sampled_from(["/tmp/p", "/tmp/q"]), unique=True)):
            text += f"  {project}:" + ("\n" + scope(4) if draw(st.booleans()) else "\n")
    return text + draw(st.sampled_from(["", "# the end\n", "\n\n"]))


@BOUNDED
@given(st.one_of(allowlists(), texts), st.sampled_from(RULES[:3]),
       st.sampled_from(["allow", "deny", "ask"]), st.sampled_from([None, "/tmp/p", "/tmp/r"]))
def test_allowlist_add_keeps_every_rule_or_refuses(text: str, rule_text: str, section: str,
                                                   project: str | None) -> None:
    path = _file(text)
    before = path.read_bytes()
    allowlist = Allowlist(path)
    try:
        allowlist.add(parse_rule(rule_text), section, project)
    except AllowlistError:
        assert path.read_bytes() == before  # refused: nothing written
        return
    expected = _texts(parse_state(before.decode("utf-8"), path))
    listed = expected.setdefault((project or "", section), [])
    if rule_text not in listed:
        listed.append(rule_text)
    after = allowlist.current()
    assert not after.errors
    assert _nonempty(_texts(after)) == _nonempty(expected)  # every other rule kept, in order
    new = path.read_text()
    for line in before.decode("utf-8").splitlines():
        assert line[line.find("#"):] in new if "#" in line else True  # comments kept


@BOUNDED
@given(st.one_of(st.text(max_size=80), st.sampled_from(SCALARS),
                 st.builds("Bash({})".format, st.text(max_size=40)),
                 st.dictionaries(st.sampled_from(["tool", "when", "x"]),
                                 st.one_of(st.text(max_size=20), st.integers(),
                                           st.dictionaries(st.text(max_size=5),
                                                           st.text(max_size=5), max_size=2),
                                           st.lists(st.text(max_size=3), max_size=2)),
                                 max_size=3),
                 st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=3)))
def test_rule_parser_raises_only_rule_errors(value: object) -> None:
    try:
        parse_rule(value, "fuzz")
    except RuleError as exc:
        assert str(exc).startswith("fuzz: ")
