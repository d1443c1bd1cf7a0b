"""Where the approval server listens, and which requests are for it (docs/remote.md).

Pure: parses `--remote HOST:PORT` and judges Host and Origin headers. The Host
check stops DNS rebinding (a page of evil.example resolving to 127.0.0.1): only IP
literals, `localhost` and the name the person gave are ours. A browser's Origin
must be the address the page was loaded from.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace

from saikish.errors import UsageError

DEFAULT_HOST = "127.0.0.1"
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\[\]]*))(?::(?P<port>\d*))?$")


@dataclass(frozen=True)
class Address:
    """A host (an IP literal or a name) and a port; port 0 means any free one."""

    host: str = DEFAULT_HOST
    port: int = 0

    @property
    def loopback(self) -> bool:
        """True when only this machine can connect (127.0.0.0/8, ::1, localhost)."""
        return is_loopback(self.host)

    @property
    def netloc(self) -> str:
        """host:port as a URL writes it ([::1]:8080)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def with_port(self, port: int) -> Address:
        """The same host with the port the server was given."""
        return replace(self, port=port)


def parse_address(text: str | None) -> Address:
    """`--remote`'s value: HOST:PORT, :PORT, PORT, HOST or [IPv6]:PORT; empty: 127.0.0.1:0."""
    text = (text or "").strip()
    if text.isdigit():
        text = f":{text}"
    match = _HOST_PORT.match(text)
    if match is None:
        raise UsageError(f"--remote {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765 "
                         f"([::1]:8765 for IPv6; port 0 picks a free one)")
    host = match.group("v6") or match.group("host") or DEFAULT_HOST
    port = int(match.group("port") or 0)
    if port > 65535:
        raise UsageError(f"--remote {text!r}: the port must be 0-65535")
    if match.group("v6") is not None and not _is_ip(host):
        raise UsageError(f"--remote {text!r}: {host} is not an IPv6 address")
    return Address(host, port)


def is_loopback(host: str) -> bool:
    """True for localhost and loopback IP literals."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def split_host(host_header: str) -> tuple[str, int | None]:
    """'[::1]:80' -> ('::1', 80); a header without a port gives None."""
    match = _HOST_PORT.match(host_header.strip())
    if match is None:
        return "", None
    host = match.group("v6") or match.group("host") or ""
    port = match.group("port")
    return host, int(port) if port else None


def host_allowed(host_header: str | None, address: Address) -> bool:
    """True when a request's Host names this server: our port, and a host no DNS can rebind."""
    if not host_header:
        return False
    host, port = split_host(host_header)
    if port != address.port or not host:
        return False
    return _is_ip(host) or host.lower() in ("localhost", address.host.lower())


def origin_allowed(origin: str | None, host_header: str | None) -> bool:
    """A browser's Origin must be the page's own (http://HOST:PORT); no Origin: not a browser."""
    if origin is None:
        return True
    return bool(host_header) and origin.lower() == f"http://{host_header}".lower()
