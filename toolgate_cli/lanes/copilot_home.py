"""The private config home of one copilot run (host code: it makes a directory and a file).

copilot keeps its whole user configuration in one directory, `$COPILOT_HOME` (default
`~/.copilot`), and in every headless run it runs what that directory names: hooks, MCP servers,
installed plugins, and the trusted folders whose own hooks then run too (measured with 1.0.102,
tests/e2e/test_copilot_readonly.py). No flag turns that off, so toolgate points `COPILOT_HOME`
at a new directory made for the run (mode 0700, in the temporary directory, never inside the
caller's tree) holding only what authentication needs: the signed-in accounts and, for a login
stored in plain text, its tokens, copied from the user's `config.json` (`AUTH_KEYS`). A token
in the system keychain, a token variable (`COPILOT_GITHUB_TOKEN`, `GH_TOKEN`, `GITHUB_TOKEN`),
the gh CLI's login and a BYOK provider (`COPILOT_PROVIDER_*`) are not in that directory and
work as before.

The directory is left behind for the run to use (toolgate execs the lane, or a launcher runs
the JSON's `invoke`); it holds the session state copilot writes, and may be removed after the
run.

It runs on the dispatch path, so it imports neither `tempfile` (which imports `re` and `enum`)
nor `json` unless there is a config file to read (see tests/test_dispatch_fast_path.py).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

AUTH_KEYS: tuple[str, ...] = ("loggedInUsers", "lastLoggedInUser", "copilotTokens")
"""The keys of copilot's `config.json` that say who is signed in (and, with
`storeTokenPlaintext`, hold the tokens); copilot 1.0.102's runtime names no other."""

CONFIG_LIMIT = 1 << 20
"""A config.json larger than this is not read (its auth keys are not carried over)."""

PREFIX = "toolgate-copilot-home-"


def auth_config(text: str) -> dict[str, object]:
    """The authentication keys of a copilot `config.json` (`AUTH_KEYS`), or {} when it holds
    none or is not the JSON object copilot writes (after its `//` comment lines)."""
    import json

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


def temporary_directory(environ: Mapping[str, str]) -> str:
    """`$TMPDIR` (or `$TEMP`, `$TMP`), else `/tmp`, resolved: where `tempfile` would look
    first."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        if environ.get(name):
            return os.path.realpath(environ[name])
    return os.path.realpath("/tmp")  # noqa: S108 - the fallback tempfile uses; made 0700 with a random name


def make_private_home(environ: Mapping[str, str] | None = None, *, outside: str) -> str:
    """A new directory private to one copilot run, with the user's authentication keys in its
    `config.json`. Raises ValueError when the temporary directory lies inside `outside` (the
    caller's tree, which not even this directory may be written into), OSError when it cannot
    hold the directory."""
    from toolgate_cli.verdict import is_within

    environ = os.environ if environ is None else environ
    temporary = temporary_directory(environ)
    if is_within(temporary, os.path.realpath(outside)):
        raise ValueError(f"the temporary directory {temporary} lies inside {outside}")
    auth: dict[str, object] = {}
    try:
        with open(user_config_path(environ), encoding="utf-8") as file:
            text = file.read(CONFIG_LIMIT + 1)
        if len(text) <= CONFIG_LIMIT:
            auth = auth_config(text)
    except (OSError, UnicodeDecodeError):
        pass  # no login stored there: the run authenticates some other way, or not at all
    home = _new_directory(temporary)
    if auth:
        import json  # already imported: the keys were read with it

        descriptor = os.open(
            os.path.join(home, "config.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(auth, file)
    return home


def _new_directory(parent: str) -> str:
    """A directory that did not exist, made with mode 0700 under `parent` (as `mkdtemp`)."""
    for _ in range(100):
        path = os.path.join(parent, PREFIX + os.urandom(6).hex())
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"no new directory could be made in {parent}")
