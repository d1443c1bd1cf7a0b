"""The approval page in a real headless browser (docs/remote.md): Debian's chromium, driven by
selenium through Debian's chromedriver, clicking through approve / reject / always / edit.

Nothing is downloaded: both binaries come from apt (.ci/run installs them). Without them
these tests fail, saying so: they are never skipped.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.remote_client import WAIT, RemoteRun, bash_turn

pytestmark = pytest.mark.slow  # a browser and saikish per test
WebDriver = webdriver.Chrome  # Debian's chromium through chromedriver
TITLE = "saikish · approvals"


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, ("the page tests need Debian's chromium and chromium-driver: "
                                 "apt-get install -y chromium chromium-driver (.ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1100,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(driver))
    yield session
    session.quit()


@pytest.fixture
def page(browser: WebDriver, ws: Path) -> Iterator[Callable[..., RemoteRun]]:
    """Start saikish -p --remote with `script` and open its page in the browser."""
    runs: list[RemoteRun] = []

    def open_page(script: str, *args: str) -> RemoteRun:
        runs.append(RemoteRun(ws.parent, script, *args))
        browser.get(runs[-1].link.http("/"))
        return runs[-1]

    yield open_page
    browser.set_window_size(1100, 900)
    problems = [e for e in console(browser) if e["level"] == "SEVERE"]
    for run in runs:
        run.kill()
    assert problems == [], problems  # no script error, no Content-Security-Policy violation


def console(browser: WebDriver) -> list[dict[str, Any]]:
    """What the page logged since last asked (errors, Content-Security-Policy violations)."""
    entries: list[dict[str, Any]] = browser.get_log("browser")  # type: ignore[no-untyped-call]
    return entries


def open_card(browser: WebDriver) -> WebElement:
    """The question waiting on the page (waiting for it to arrive)."""
    found: list[WebElement] = []

    def arrived(driver: WebDriver) -> bool:
        found[:] = driver.find_elements(By.CSS_SELECTOR, "article.card:not(.resolved)")
        return bool(found)

    WebDriverWait(browser, WAIT).until(arrived)
    return found[0]


def click(card: WebElement, action: str) -> None:
    card.find_element(By.CSS_SELECTOR, f"[data-action={action}]").click()


def outcome(browser: WebDriver, card: WebElement) -> str:
    """The line a resolved card shows (waiting for it)."""
    WebDriverWait(browser, WAIT).until(lambda d: "resolved" in (card.get_attribute("class") or ""))
    return str(card.find_element(By.CSS_SELECTOR, ".outcome").text)


def test_yes_on_the_page_runs_the_call_and_shows_the_audit(page: Any, browser: WebDriver,
                                                           ws: Path) -> None:
    run = page(bash_turn("touch a && curl -s localhost:9", "ls"))
    card = open_card(browser)
    assert card.find_element(By.CSS_SELECTOR, "pre.bash").text == "touch a && curl -s localhost:9"
    parts = [" ".join(p.text.split()) for p in card.find_elements(By.CSS_SELECTOR, ".parts li")]
    assert parts == ["WRITE touch a needs approval", "NETWORK curl -s localhost:9 needs approval"]
    assert "why:" in card.text and "ls" in card.find_element(By.CSS_SELECTOR, ".batch").text
    assert card.find_element(By.CSS_SELECTOR, ".countdown").text.startswith("auto-deny in ")
    click(card, "yes")
    assert outcome(browser, card) == "approved on this page"
    row = WebDriverWait(browser, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#audit tbody tr.approved"))[-1]
    assert "touch a && curl -s localhost:9" in row.text and "user (web page)" in row.text
    code, result, _ = run.finish()
    assert code == 0 and (ws / "a").exists()
    assert result["calls"][0]["source"] == "user"


def test_no_with_feedback_on_the_page(page: Any, browser: WebDriver, ws: Path) -> None:
    run = page(bash_turn("touch a", "touch b"))
    card = open_card(browser)
    click(card, "no")
    card.find_element(By.CSS_SELECTOR, "[data-panel=no] input").send_keys("wrong file")
    click(card, "send-no")
    assert outcome(browser, card) == "rejected on this page: wrong file"
    click(open_card(browser), "yes")  # the batch goes on to the next call
    code, result, _ = run.finish()
    assert [(c["decision"], c["feedback"]) for c in result["calls"]] == [
        ("rejected_soft", "wrong file"), ("approved", None)]
    assert not (ws / "a").exists() and (ws / "b").exists()


def test_always_for_this_project_on_the_page(page: Any, browser: WebDriver, ws: Path) -> None:
    run = page(bash_turn("touch a", "touch b"))
    card = open_card(browser)
    click(card, "always")
    rule = card.find_element(By.CSS_SELECTOR, "[data-panel=always] input.rule")
    assert rule.get_attribute("value") == "Bash(touch *)"
    card.find_element(By.CSS_SELECTOR, "input[type=radio][value=project]").click()
    click(card, "send-always")
    assert outcome(browser, card) == "approved on this page · always (project): Bash(touch *)"
    code, result, _ = run.finish()
    assert [c["source"] for c in result["calls"]] == ["user", "rule"]  # b was not asked
    saved = yaml.safe_load((ws.parent / "config" / "allowlist.yaml").read_text())
    assert saved["projects"][str(ws)]["allow"] == ["Bash(touch *)"]


def test_stop_on_the_page_stops_the_batch(page: Any, browser: WebDriver, ws: Path) -> None:
    run = page(bash_turn("touch a", "touch b"))
    card = open_card(browser)
    click(card, "stop")
    assert outcome(browser, card) == "stopped on this page: stopped from the web page"
    code, result, _ = run.finish()
    assert code == 3 and [c["decision"] for c in result["calls"]] == ["rejected_hard", "not_run"]


def test_edit_on_the_page_asks_again_about_the_edited_call(page: Any, browser: WebDriver,
                                                           ws: Path) -> None:
    run = page(bash_turn("touch wrong"))
    card = open_card(browser)
    click(card, "edit")
    area = card.find_element(By.CSS_SELECTOR, "[data-panel=edit] textarea")
    assert area.get_attribute("value") == "touch wrong"
    area.clear()
    area.send_keys("touch right")
    click(card, "send-edit")
    assert outcome(browser, card) == "approved on this page (edited: asked again)"
    again = open_card(browser)
    assert again.find_element(By.CSS_SELECTOR, "pre.bash").text == "touch right"
    click(again, "yes")
    assert run.finish()[0] == 0
    assert (ws / "right").exists() and not (ws / "wrong").exists()


def test_what_the_model_wrote_is_shown_as_text_never_as_html(page: Any, browser: WebDriver,
                                                              ws: Path) -> None:
    command = ("touch '<img src=x onerror=\"document.title=1\">' "
               "'</pre><script>document.title=2</script>' \u202e")
    run = page(bash_turn(command))
    card = open_card(browser)
    shown = card.find_element(By.CSS_SELECTOR, "pre.bash").text
    assert shown == command.replace("\u202e", "\\u202e")  # a bidi override is made visible
    assert card.find_elements(By.CSS_SELECTOR, "img, script") == []
    assert browser.title == TITLE
    click(card, "stop")
    assert run.finish()[0] == 3


def test_another_answer_closes_the_card_on_the_page(page: Any, browser: WebDriver,
                                                    ws: Path) -> None:
    run = page(bash_turn("touch a"))
    card = open_card(browser)
    client = run.client()
    client.answer(client.next("approval_needed"), True)
    assert outcome(browser, card) == "approved on another page"
    assert card.find_elements(By.CSS_SELECTOR, "button") == []  # nothing left to click
    assert run.finish()[0] == 0


def test_the_page_fits_a_phone(page: Any, browser: WebDriver, ws: Path) -> None:
    browser.set_window_size(390, 844)
    run = page(bash_turn("touch a-file-with-a-rather-long-name-" + "x" * 120))
    card = open_card(browser)
    width = browser.execute_script("return document.documentElement.scrollWidth")
    inner = browser.execute_script("return window.innerWidth")
    assert width <= inner  # nothing sticks out sideways
    yes = card.find_element(By.CSS_SELECTOR, "[data-action=yes]")
    assert yes.is_displayed() and yes.size["width"] >= 120  # a thumb-sized button
    yes.click()
    assert outcome(browser, card) == "approved on this page"
    assert run.finish()[0] == 0


def test_the_page_with_a_wrong_token_shows_nothing(page: Any, browser: WebDriver,
                                                   ws: Path) -> None:
    run = page(bash_turn("touch a"), "--timeout", "0")
    open_card(browser)
    browser.get(run.link.http("/", "wrong"))
    assert "token is missing or wrong" in browser.find_element(By.TAG_NAME, "body").text
    console(browser)  # the 403 is logged as an error: expected here
    client = run.client()
    client.answer(client.next("approval_needed"), True)
    assert run.finish()[0] == 0

