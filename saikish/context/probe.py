"""A local server's own figure for the context window (docs/SPEC.md §10.3).

llama.cpp says it at /props (n_ctx), vLLM at /v1/models (max_model_len), Ollama at
/api/ps for a loaded model and in the model's num_ctx parameter at /api/show.
Asked once per model, with a short timeout; a server that says nothing leaves the
table's figure. Parsing is pure; `ask_server` is the one function that does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

PROBE_TIMEOUT_S = 3.0
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)

Fetch = Callable[[str, Mapping[str, Any] | None], Any]  # (url, JSON body or None) -> JSON


def window_from_props(data: Any) -> int | None:
    """llama.cpp's /props: n_ctx of the default generation settings (or at the top)."""
    if not isinstance(data, Mapping):
        return None
    settings = data.get("default_generation_settings")
    inner = settings.get("n_ctx") if isinstance(settings, Mapping) else None
    return _positive(inner) or _positive(data.get("n_ctx"))


def window_from_models(data: Any, model: str) -> int | None:
    """An OpenAI-compatible /models list: vLLM's max_model_len, or a context_length."""
    entries = data.get("data") if isinstance(data, Mapping) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping) and entry.get("id") == model:
            meta = entry.get("meta")
            meta = meta if isinstance(meta, Mapping) else {}
            return _positive(entry.get("max_model_len")) or \
                _positive(entry.get("context_length")) or _positive(meta.get("n_ctx"))
    return None


def window_from_ollama(running: Any, shown: Any, model: str) -> int | None:
    """Ollama: a loaded model's context_length (/api/ps), else its num_ctx (/api/show)."""
    models = running.get("models") if isinstance(running, Mapping) else None
    for entry in models if isinstance(models, list) else []:
        if isinstance(entry, Mapping) and model in (entry.get("name"), entry.get("model")):
            found = _positive(entry.get("context_length"))
            if found:
                return found
    parameters = shown.get("parameters") if isinstance(shown, Mapping) else None
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    return int(match.group(1)) if match else None


def ask_server(base_url: str, model: str, ollama: bool, fetch: Fetch) -> int | None:
    """The window the server at `base_url` (an OpenAI-compatible /v1 URL) runs `model` with."""
    root = base_url.rstrip("/").removesuffix("/v1")
    if ollama:
        return window_from_ollama(fetch(f"{root}/api/ps", None),
                                  fetch(f"{root}/api/show", {"model": model}), model)
    # llama.cpp's /props has the window it runs with; its /v1/models only the trained one.
    return window_from_props(fetch(f"{root}/props", None)) or \
        window_from_models(fetch(f"{base_url.rstrip('/')}/models", None), model)


def http_fetch(url: str, body: Mapping[str, Any] | None) -> Any:
    """GET (or POST `body` to) `url` and return its JSON; None for any failure."""
    import httpx2  # the SDKs' HTTP library

    try:
        response = httpx2.post(url, json=dict(body), timeout=PROBE_TIMEOUT_S) if body \
            is not None else httpx2.get(url, timeout=PROBE_TIMEOUT_S)
        return response.json() if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError):
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None
