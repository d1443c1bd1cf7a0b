// The saikish approval page (docs/remote.md): protocol v1 over one WebSocket.
// Everything that comes from the model or a tool is inserted as text (createTextNode,
// textContent), never as HTML, and made inert first: control, bidi and invisible
// characters are shown as \xNN / \uNNNN, as the terminal does (saikish/ui/inert.py).
"use strict";

(() => {
  const VERSION = 1;
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
  const LEVELS = { LOW: "low", MEDIUM: "medium", HIGH: "high", CRITICAL: "critical" };
  const SCOPES = [["session", "this session"], ["project", "this project (saved)"],
                  ["global", "every project (saved)"]];
  const state = { socket: null, sessionId: null, clientId: null, ended: false,
                  retry: 500, cards: new Map() };
  const $ = (id) => document.getElementById(id);

  // -- text, made inert ------------------------------------------------------------

  function inert(value) {
    return String(value ?? "").replace(UNSAFE, (c) => {
      const code = c.charCodeAt(0);
      return code < 0x100 ? "\\x" + code.toString(16).padStart(2, "0")
                          : "\\u" + code.toString(16).padStart(4, "0");
    });
  }

  // A long run of blanks is counted, so padding cannot push a command's tail out of sight.
  function showPadding(text) {
    return text.replace(/[ \t]{16,}/g, (run) => `⟨${run.length} blanks⟩`);
  }

  // el("p", {class: "x"}, "text", child): strings become inert text nodes.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(inert(child)) : child);
    }
    return node;
  }

  function badge(risk, level) {
    return el("span", { class: `badge ${LEVELS[level] || "high"}` }, String(risk).replace("_", "-"));
  }

  // -- the call, as the box shows it ------------------------------------------------

  const SHELL = /('(?:[^'])*'?|"(?:\\.|[^"\\])*"?|&&|\|\||;;|[|;&]|>>|[<>]|\$\{[^}]*\}?|\$[A-Za-z_0-9@*#?$!-]?|#.*$|\s+|[^\s|;&<>'"$#]+|.)/gm;

  function bashCode(command) {
    const pre = el("pre", { class: "code bash" });
    let first = true;
    for (const token of showPadding(command).match(SHELL) || []) {
      let kind = "";
      if (/^\s+$/.test(token)) kind = "";
      else if (/^(&&|\|\||;;|[|;&])$/.test(token)) { kind = "op"; first = true; }
      else if (/^(>>|[<>])$/.test(token)) kind = "redir";
      else if (/^['"]/.test(token)) kind = "str";
      else if (token.startsWith("$")) kind = "var";
      else if (token.startsWith("#") && first) kind = "comment";
      else if (first) { kind = "cmd"; first = false; }
      pre.append(kind ? el("span", { class: kind }, token) : document.createTextNode(inert(token)));
      if (token.includes("\n")) first = true;
    }
    return pre;
  }

  function diffView(diff) {
    const words = { new: "new file", overwrite: "overwrite", edit: "edit",
                    edit_fails: "edit (does not apply to the current file; it will fail)",
                    special: "write (not a regular file; it will fail)" };
    const pre = el("pre", { class: "code diff" });
    for (const line of diff.text.split("\n")) {
      const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
                 : line.startsWith("-") ? "del" : "";
      pre.append(el("span", { class: kind }, line + "\n"));
    }
    return [el("p", { class: "path" }, el("b", {}, words[diff.kind] || diff.kind), " ", diff.path),
            pre, diff.more ? el("p", { class: "dim" }, `… ${diff.more} more lines not shown`) : null];
  }

  function callBody(msg) {
    const args = msg.arguments;
    if (msg.tool === "bash" && args && typeof args.command === "string") return bashCode(args.command);
    if (msg.diff) return diffView(msg.diff);
    return el("pre", { class: "code json" }, JSON.stringify(args, null, 2));
  }

  function partsList(parts) {
    if (!parts.length) return null;
    return el("ul", { class: "parts" }, parts.map((part) =>
      el("li", { class: part.permitted ? "permitted" : "asked" }, badge(part.risk, part.level),
         el("code", {}, showPadding(part.text.replace(/\n/g, " ⏎ "))),
         el("span", { class: "reason" }, (part.permitted ? "✓ " : "") + part.reason))));
  }

  function batchView(msg) {
    if (msg.batch.total <= 1) return null;
    const rest = msg.batch_remaining;
    return el("div", { class: "batch" },
      el("p", { class: "dim" }, `call ${msg.batch.index + 1} of ${msg.batch.total}` +
        (rest.length ? ` · still waiting: ${rest.length}` : "")),
      rest.length ? el("ol", { class: "waiting" },
        rest.map((call) => el("li", {}, el("b", {}, call.tool), " ", call.summary))) : null);
  }

  // -- one question: a card with the choices ---------------------------------------

  function card(msg) {
    const c = { msg, received: Date.now(), node: null, actions: null, panel: null, countdown: null };
    c.countdown = el("span", { class: "countdown" });
    const about = msg.about.length ? el("dl", { class: "about" },
      msg.about.map(([label, value]) => [el("dt", {}, label), el("dd", {}, value)])) : null;
    const rules = msg.proposedRules.length
      ? `always would allow: ${msg.proposedRules.join(", ")}` + (msg.alwaysNote ? ` · ${msg.alwaysNote}` : "")
      : "always: not offered (no rule can cover this call)";
    c.actions = el("div", { class: "actions" },
      button("Yes", "yes", "primary", () => send(c, { approved: true, scope: "once" })),
      msg.proposedRules.length ? button("Always…", "always", "", () => openPanel(c, alwaysPanel(c))) : null,
      msg.question ? null : button("Edit…", "edit", "", () => openPanel(c, editPanel(c))),
      button("No…", "no", "", () => openPanel(c, noPanel(c))),
      button("Stop", "stop", "danger", () => send(c, { approved: false, mode: "reject_hard" })));
    c.panel = el("div", { class: "panel" });
    c.node = el("article", { class: `card ${LEVELS[msg.level] || "high"}`, "data-execution-id": msg.executionId },
      el("header", {}, el("b", { class: "tool" }, msg.tool), badge(msg.risk, msg.level),
         msg.tier ? el("span", { class: "tier" }, msg.tier) : null, c.countdown),
      msg.question ? el("p", { class: "question" }, msg.question) : null,
      about, callBody(msg), partsList(msg.parts),
      el("p", { class: "why" }, `why: ${msg.reason}`),
      el("p", { class: "dim" }, rules),
      msg.outsideSandbox ? el("p", { class: "warn" }, "runs outside the sandbox") : null,
      batchView(msg), c.actions, c.panel, el("p", { class: "outcome" }));
    return c;
  }

  function button(label, action, kind, onclick) {
    return el("button", { type: "button", class: kind, "data-action": action, onclick }, label);
  }

  function openPanel(c, content) {
    c.panel.replaceChildren(content);
    const first = c.panel.querySelector("input, textarea");
    if (first) first.focus();
  }

  function alwaysPanel(c) {
    const inputs = c.msg.proposedRules.map((rule) =>
      el("input", { type: "text", class: "rule", value: rule, "aria-label": "rule", spellcheck: "false" }));
    const scopes = el("fieldset", { class: "scopes" }, el("legend", {}, "allow from now on, for"),
      SCOPES.map(([value, label], i) => el("label", {},
        el("input", { type: "radio", name: `scope-${c.msg.executionId}`, value, checked: i === 0 }),
        " " + label)));
    return el("div", { "data-panel": "always" }, el("p", { class: "dim" }, "the rule (edit it if you like):"),
      inputs, scopes, button("Allow always", "send-always", "primary", () => send(c, {
        approved: true, rule: inputs.map((input) => input.value),
        scope: scopes.querySelector("input:checked").value })));
  }

  function editPanel(c) {
    const key = c.msg.editable;
    const args = c.msg.arguments;
    const plain = key && args && typeof args[key] === "string";
    const area = el("textarea", { rows: 6, spellcheck: "false", "aria-label": "edit" });
    area.value = plain ? args[key] : JSON.stringify(args, null, 2);
    return el("div", { "data-panel": "edit" },
      el("p", { class: "dim" }, plain ? `edit ${key}; the edited call is checked and asked again:`
                                      : "edit the arguments (JSON); the edited call is checked and asked again:"),
      area, button("Send the edit", "send-edit", "primary", () => {
        let edited;
        try {
          edited = plain ? Object.assign({}, args, { [key]: area.value }) : JSON.parse(area.value);
        } catch (error) { return toast(`not valid JSON: ${error.message}`); }
        if (edited === null || typeof edited !== "object" || Array.isArray(edited)) {
          return toast("the arguments must be a JSON object");
        }
        send(c, { approved: true, arguments: edited });
      }));
  }

  function noPanel(c) {
    const input = el("input", { type: "text", "aria-label": "feedback",
                                placeholder: "tell the model why (optional)" });
    return el("div", { "data-panel": "no" }, input,
      button("Reject this call", "send-no", "danger",
             () => send(c, { approved: false, mode: "reject_soft", feedback: input.value })));
  }

  function send(c, answer) {
    if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
      return toast("not connected: the answer was not sent");
    }
    setBusy(c, true);
    state.socket.send(JSON.stringify({ v: VERSION, type: "approval_response",
                                       executionId: c.msg.executionId, ...answer }));
  }

  function setBusy(c, busy) {
    for (const node of c.node.querySelectorAll("button, input, textarea")) node.disabled = busy;
  }

  // -- messages from saikish -------------------------------------------------------

  const handlers = {
    session_started(msg) {
      state.sessionId = msg.sessionId;
      state.clientId = msg.clientId;
      state.retry = 500;
      for (const [id, c] of state.cards) if (!c.done) { c.node.remove(); state.cards.delete(id); }
      status("connected", `connected · session ${msg.sessionId}`);
      $("session").textContent = inert(`${msg.workspace} · mode ${msg.mode} · saikish ${msg.version}`);
      autonomyOptions(msg.autonomyLevels, msg.autonomy);
      loadAudit();
      idle();
    },
    approval_needed(msg) {
      if (state.cards.has(msg.executionId)) return;
      const c = card(msg);
      const first = ![...state.cards.values()].some((x) => !x.done);
      state.cards.set(msg.executionId, c);
      $("questions").prepend(c.node);
      if (first) c.node.scrollIntoView({ block: "nearest" });
      tick();
      idle();
    },
    approval_resolved(msg) {
      const who = msg.answeredBy.channel === "terminal" ? "at the terminal"
        : msg.answeredBy.client === state.clientId ? "on this page" : "on another page";
      const what = { approved: "approved", rejected_soft: "rejected", rejected_hard: "stopped" }[msg.outcome]
        || msg.outcome;
      const scope = msg.edited ? " (edited: asked again)" : msg.scope && msg.scope !== "once" ? ` · always (${msg.scope}): ${msg.rules.join(", ")}` : "";
      resolve(msg.executionId, `${what} ${who}${scope}` + (msg.feedback ? `: ${msg.feedback}` : ""),
              msg.outcome === "approved" ? "ok" : "no");
    },
    approval_timeout(msg) { resolve(msg.executionId, "timed out: nobody answered · the batch is stopped", "no"); },
    autonomy_changed(msg) { $("autonomy").value = msg.autonomy; toast(`autonomy is now ${msg.autonomy}`, "info"); },
    audit_entry(msg) { auditRow(msg.entry); },
    call_finished(msg) {
      const c = [...state.cards.values()].reverse().find((x) => x.msg.callId === msg.callId && x.done);
      if (c && msg.outcome === "approved") {
        c.node.append(el("pre", { class: `code result ${msg.is_error ? "error" : ""}` }, msg.excerpt));
      }
    },
    session_ended(msg) {
      state.ended = true;
      status("ended", `session ended: ${msg.reason}`);
      for (const c of state.cards.values()) if (!c.done) resolve(c.msg.executionId, "the session ended", "no");
    },
    error(msg) {
      const c = msg.executionId && state.cards.get(msg.executionId);
      if (c && !c.done) setBusy(c, false);
      toast(msg.message);
    },
  };

  function resolve(executionId, text, kind) {
    const c = state.cards.get(executionId);
    if (!c || c.done) return;
    c.done = true;
    c.actions.remove();
    c.panel.remove();
    c.countdown.textContent = "";
    c.node.classList.add("resolved");
    const outcome = c.node.querySelector(".outcome");
    outcome.classList.add(kind);
    outcome.textContent = inert(text);
    idle();
  }

  function idle() {
    const open = [...state.cards.values()].some((c) => !c.done);
    $("idle").hidden = open;
    const done = [...state.cards.values()].filter((c) => c.done);
    for (const c of done.slice(0, Math.max(0, done.length - 5))) {  // keep the last five
      c.node.remove();
      state.cards.delete(c.msg.executionId);
    }
  }

  // The countdown runs on the page's clock from when the question arrived: a phone whose
  // clock is off still counts the right number of seconds.
  function tick() {
    for (const c of state.cards.values()) {
      if (c.done || c.msg.deadline === null) continue;
      const left = c.msg.deadline - c.msg.timestamp - (Date.now() - c.received);
      c.countdown.textContent = left > 0 ? `auto-deny in ${Math.ceil(left / 1000)}s`
                                         : "time is up (the terminal may have paused it)";
    }
  }

  // -- audit trail, autonomy, status -----------------------------------------------

  async function loadAudit() {
    const url = `api/audit?sessionId=${encodeURIComponent(state.sessionId)}&token=${encodeURIComponent(TOKEN)}`;
    try {
      const answer = await fetch(url, { cache: "no-store" });
      const data = await answer.json();
      $("audit").tBodies[0].replaceChildren();
      for (const entry of data.entries || []) auditRow(entry);
    } catch (error) { toast(`the audit trail could not be loaded: ${error.message}`); }
  }

  function auditRow(entry) {
    const args = entry.arguments || {};
    const what = typeof args === "string" ? args : args.command ?? args.path ?? JSON.stringify(args);
    const by = entry.source + (entry.via ? ` (${entry.via === "remote" ? "web page" : entry.via})` : "");
    const row = el("tr", { class: entry.decision },
      el("td", {}, String(entry.time || "").replace(/^.*T|Z$/g, "")), el("td", {}, entry.tool),
      el("td", { class: "what" }, showPadding(String(what).slice(0, 300))),
      el("td", {}, entry.decision + (entry.rule ? ` · ${entry.rule}` : "")), el("td", {}, by));
    const body = $("audit").tBodies[0];
    body.prepend(row);
    while (body.rows.length > 200) body.lastChild.remove();
  }

  function autonomyOptions(levels, current) {
    const select = $("autonomy");
    select.replaceChildren(...levels.map((level) => el("option", { value: level }, level)));
    select.value = current;
    select.disabled = false;
  }

  function status(kind, text) {
    const node = $("status");
    node.dataset.state = kind;
    node.textContent = inert(text);
  }

  let toastTimer = null;
  function toast(text, kind = "error") {
    const node = $("toast");
    node.textContent = inert(text);
    node.className = `toast ${kind}`;
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, 6000);
  }

  // -- the connection ---------------------------------------------------------------

  function connect() {
    const socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(TOKEN)}`);
    state.socket = socket;
    socket.addEventListener("message", (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (error) { return toast("a message was not JSON"); }
      const handler = msg && msg.v === VERSION ? handlers[msg.type] : null;
      if (handler) handler(msg);
    });
    socket.addEventListener("close", () => {
      if (state.ended) return;
      status("disconnected", "disconnected · trying again…");
      for (const c of state.cards.values()) if (!c.done) setBusy(c, true);
      setTimeout(connect, state.retry);
      state.retry = Math.min(state.retry * 2, 10000);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("autonomy").addEventListener("change", (event) => {
      if (state.socket && state.socket.readyState === WebSocket.OPEN) {
        state.socket.send(JSON.stringify({ v: VERSION, type: "set_autonomy", autonomy: event.target.value }));
      }
    });
    setInterval(tick, 250);
    connect();
  });
})();
