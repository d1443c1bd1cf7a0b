"""Approve from anywhere (docs/SPEC.md §7.5, docs/remote.md): a WebSocket server and a web page.

`saikish --remote` and `/remote` start it; nothing here is imported otherwise, so the
server's dependency (websockets) and its threads cost nothing until asked for.

  address.py   HOST:PORT, loopback or not, which Host and Origin headers are ours
  protocol.py  the messages of protocol v1 as values; a response -> a Decision
  view.py      an ApprovalRequest as the web page shows it (parts, diff, the batch)
  hub.py       open questions and connected clients: the first answer wins
  approver.py  the Approver that asks the hub and races the terminal
  server.py    the WebSocket and HTTP server (websockets' threaded server)
  channel.py   composition: start a channel for an Agent, stop it again
  static/      the page: plain HTML, CSS and JavaScript, no build step
"""
