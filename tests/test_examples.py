"""The examples run as written (real processes, stdin answers, a scripted model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, *args: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=60,
                          check=False)


def test_embed_approves_read_only_calls_and_asks_about_the_rest(ws: Path,
                                                                tmp_path: Path) -> None:
    (tmp_path / "s.yml").write_text(
        "- text: Looking.\n"
        "  tool_calls:\n"
        "    - {name: bash, arguments: {command: ls}}\n"
        "    - {name: bash, arguments: {command: touch yes.txt}}\n"
        "    - {name: bash, arguments: {command: touch no.txt}}\n"
        "- text: Done.\n", encoding="utf-8")
    done = run_example("embed.py", "-m", f"script:{tmp_path / 's.yml'}", "-w", str(ws), "go",
                       stdin="y\nn\n", cwd=ws)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("run it? [y/N]") == 2  # ls was never asked about
    assert "[approved by user] bash {\"command\": \"ls\"}" in done.stdout
    assert "[rejected_soft by user] bash {\"command\": \"touch no.txt\"}" in done.stdout
    assert (ws / "yes.txt").exists() and not (ws / "no.txt").exists()
    assert done.stdout.rstrip().endswith("-- finished")


def test_embed_asks_about_reads_of_secrets_and_outside(ws: Path, tmp_path: Path) -> None:
    """Read-only is not harmless: the approver asks why, and says it."""
    (ws / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    (tmp_path / "s.yml").write_text(
        "- tool_calls:\n"
        "    - {name: read_file, arguments: {path: /etc/shadow}}\n"
        "    - {name: read_file, arguments: {path: .env}}\n"
        "    - {name: read_file, arguments: {path: .env}}\n"
        "- text: Done.\n", encoding="utf-8")
    done = run_example("embed.py", "-m", f"script:{tmp_path / 's.yml'}", "-w", str(ws), "go",
                       stdin="n\nn\ny\n", cwd=ws)
    assert done.returncode == 0, done.stderr
    assert "[secret] read_file reads /etc/shadow" in done.stdout
    assert done.stdout.count("[secret] read_file reads .env") == 2
    assert "[rejected_soft by user] read_file {\"path\": \"/etc/shadow\"}" in done.stdout
    assert "[approved by user] read_file {\"path\": \".env\"}" in done.stdout


def test_custom_tool_asks_for_the_tool_and_from_inside_it(ws: Path) -> None:
    done = run_example("custom_tool.py", stdin="y\nn\n", cwd=ws)
    assert done.returncode == 0, done.stderr
    assert "run deploy? {\"env\": \"prod\"}" in done.stdout
    assert "Really deploy to prod? {\"env\": \"prod\"}" in done.stdout
    words = len((ROOT / "examples" / "custom_tool.py").read_text().split())
    assert f"word_count: {words}" in done.stdout
    assert "deploy: not deployed: the person said no" in done.stdout
