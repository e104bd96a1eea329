"""The private config home of one copilot run (host code: it makes a directory and a file).

copilot keeps its whole user configuration in one directory, `$COPILOT_HOME` (default
`~/.copilot`), and in every headless run it runs what that directory names: hooks, MCP servers,
installed plugins, and the trusted folders whose own hooks then run too (measured with 1.0.102,
tests/e2e/test_copilot_readonly.py). No flag turns that off, so toolgate points `COPILOT_HOME`
at a new directory made for the run (`tempfile.mkdtemp`, mode 0700, in the temporary
directory) holding only what authentication needs: the signed-in accounts and, for a login
stored in plain text, its tokens, copied from the user's `config.json` (`AUTH_KEYS`). A token
in the system keychain, a token variable (`COPILOT_GITHUB_TOKEN`, `GH_TOKEN`, `GITHUB_TOKEN`),
the gh CLI's login and a BYOK provider (`COPILOT_PROVIDER_*`) are not in that directory and
work as before.

The directory is left behind for the run to use (toolgate execs the lane, or a launcher runs
the JSON's `invoke`); it holds the session state copilot writes, and may be removed after the
run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

AUTH_KEYS: tuple[str, ...] = ("loggedInUsers", "lastLoggedInUser", "copilotTokens")
"""The keys of copilot's `config.json` that say who is signed in (and, with
`storeTokenPlaintext`, hold the tokens); copilot 1.0.102's runtime names no other."""

CONFIG_LIMIT = 1 << 20
"""A config.json larger than this is not read (its auth keys are not carried over)."""


def auth_config(text: str) -> dict[str, object]:
    """The authentication keys of a copilot `config.json` (`AUTH_KEYS`), or {} when it holds
    none or is not the JSON object copilot writes (after its `//` comment lines)."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    try:
        config = json.loads(body)
    except ValueError:
        return {}
    if not isinstance(config, dict):
        return {}
    return {key: config[key] for key in AUTH_KEYS if key in config}


def user_config_path(environ: Mapping[str, str]) -> str:
    """Where copilot reads the user's `config.json`: `$COPILOT_HOME`, else `~/.copilot`."""
    home = environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")
    return os.path.join(home, "config.json")


def make_private_home(environ: Mapping[str, str] | None = None, *, outside: str) -> str:
    """A new directory private to one copilot run, with the user's authentication keys in its
    `config.json`. Raises ValueError when the temporary directory lies inside `outside` (the
    caller's tree, which not even this directory may be written into), OSError when the
    temporary directory cannot hold it."""
    import tempfile

    from toolgate_cli.verdict import is_within

    temporary = os.path.realpath(tempfile.gettempdir())
    if is_within(temporary, os.path.realpath(outside)):
        raise ValueError(f"the temporary directory {temporary} lies inside {outside}")
    environ = os.environ if environ is None else environ
    auth: dict[str, object] = {}
    try:
        with open(user_config_path(environ), encoding="utf-8") as file:
            text = file.read(CONFIG_LIMIT + 1)
        if len(text) <= CONFIG_LIMIT:
            auth = auth_config(text)
    except (OSError, UnicodeDecodeError):
        pass  # no login stored there: the run authenticates some other way, or not at all
    home = tempfile.mkdtemp(prefix="toolgate-copilot-home-", dir=temporary)
    if auth:
        descriptor = os.open(
            os.path.join(home, "config.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(auth, file)
    return home
