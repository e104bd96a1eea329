"""The pinned lane CLIs the end-to-end tests run, and where they are installed.

`python tests/e2e/lanes.py install` installs them from the npm registry into the git-ignored
`.cache/lanes/` folder of the checkout; `.ci/run` does this before the tests.

`python tests/e2e/lanes.py latest [PYTEST ARGS]` is the maintenance command for the next
release: it installs the newest published version of each lane into `.cache/lanes-latest/`,
runs `toolgate lanes --check` on them (drift from toolgate's tables) and the end-to-end suite
against them (`TOOLGATE_LANES_ANY_VERSION=1` lets `lane_binary` take whatever is installed).
Not part of gating CI: the registry moves under it. A pass there, with the pins moved and the
tables updated, is what makes a new version proven.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
LANES_PREFIX = Path(os.environ.get("TOOLGATE_LANES_PREFIX", REPO_ROOT / ".cache" / "lanes"))
LATEST_PREFIX = REPO_ROOT / ".cache" / "lanes-latest"
ANY_VERSION = os.environ.get("TOOLGATE_LANES_ANY_VERSION") == "1"
"""Take whatever version is installed (the `latest` command), not only the pinned one."""

# lane kind -> (npm package, pinned version, the version string `<bin> --version` prints)
PINNED: dict[str, tuple[str, str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332", "2.1.332"),
    "codex": ("@openai/codex", "0.171.0", "0.171.0"),
    # No read-only flags: toolgate runs it only under --lock-tree (test_lock_tree_lanes.py).
    "opencode": ("opencode-ai", "1.18.33", "1.18.33"),
    # Refused for its flags; runs under --lock-tree on the lock alone (test_lock_tree_lanes.py).
    "gemini": ("@google/gemini-cli", "0.61.0", "0.61.0"),
    # A native binary (the optional dependency @github/copilot-linux-x64) behind a node loader.
    "copilot": ("@github/copilot", "1.0.102", "GitHub Copilot CLI 1.0.102."),
}

VERSION_ARGS: dict[str, tuple[str, ...]] = {
    # `copilot --version` hands over to the newest package in ~/.copilot/pkg or
    # ~/.cache/copilot/pkg; with --no-auto-update the launched binary answers (and unpacks its
    # package into COPILOT_PKG_CACHE_HOME once, see COPILOT_PKG_CACHE).
    "copilot": ("--no-auto-update", "--version"),
}
"""How each lane is asked for its version (default `--version`)."""

COPILOT_PKG_CACHE = REPO_ROOT / ".cache" / "e2e-copilot-pkg"
"""The one package cache every copilot run of the end-to-end tests shares
(`COPILOT_PKG_CACHE_HOME`): copilot unpacks ~235 MB there at its first start, once."""

PROBE_ENV: dict[str, dict[str, str]] = {
    "copilot": {"COPILOT_PKG_CACHE_HOME": str(COPILOT_PKG_CACHE)}
}
"""Environment for asking a lane its version (so copilot unpacks into the shared cache)."""

HOW_TO_ENABLE = "install the pinned lane CLIs with `python tests/e2e/lanes.py install` (needs npm)"


def lane_binary(kind: str) -> Path | None:
    """The installed binary for `kind` at its pinned version, or None if it is not there."""
    binary = LANES_PREFIX / "node_modules" / ".bin" / kind
    if not binary.exists():
        return None
    args = VERSION_ARGS.get(kind, ("--version",))
    env = {**os.environ, **PROBE_ENV.get(kind, {})}
    try:
        out = subprocess.run(
            [str(binary), *args], capture_output=True, text=True, timeout=60, check=False, env=env
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    if ANY_VERSION:
        return binary if out.strip() else None
    return binary if PINNED[kind][2] in out else None


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm not found: install Node.js 18+ with npm first")
    return npm


def _npm_install(prefix: Path, specs: list[str]) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            _npm(),
            "install",
            "--prefix",
            str(prefix),
            "--no-audit",
            "--no-fund",
            "--no-save",
            *specs,
        ],
        check=True,
    )


def install() -> None:
    _npm_install(LANES_PREFIX, [f"{package}@{version}" for package, version, _ in PINNED.values()])
    for kind in PINNED:
        if lane_binary(kind) is None:
            sys.exit(f"{kind} did not install at its pinned version {PINNED[kind][1]}")
        print(f"{kind} {PINNED[kind][1]}: {LANES_PREFIX / 'node_modules' / '.bin' / kind}")


def latest(pytest_args: list[str]) -> int:
    """Install the newest release of every lane, check toolgate's tables against them, and run
    the end-to-end suite on them; return 0 only when both pass."""
    newest = {}
    for kind, (package, pinned, _) in PINNED.items():
        found = subprocess.run(
            [_npm(), "view", package, "version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        newest[kind] = found
        print(f"{kind}: newest {package}@{found} (pinned {pinned})")
    _npm_install(
        LATEST_PREFIX, [f"{PINNED[kind][0]}@{version}" for kind, version in newest.items()]
    )
    env = dict(os.environ)
    bin_dir = LATEST_PREFIX / "node_modules" / ".bin"
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    print("--- toolgate lanes --check")
    check = subprocess.run([sys.executable, "-m", "toolgate_cli", "lanes", "--check"], env=env)
    print("--- the end-to-end suite against the newest releases")
    env["TOOLGATE_LANES_PREFIX"] = str(LATEST_PREFIX)
    env["TOOLGATE_LANES_ANY_VERSION"] = "1"
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/e2e", *pytest_args], cwd=REPO_ROOT, env=env
    )
    print(
        f"lanes --check: exit {check.returncode}; e2e suite: exit {suite.returncode}. To prove "
        "a new version: update its table until lanes --check is clean, move its pin in "
        "tests/e2e/lanes.py and its VERSIONS in toolgate_cli/lanes/, and run `pytest`."
    )
    return 0 if check.returncode == 0 and suite.returncode == 0 else 1


USAGE = "usage: python tests/e2e/lanes.py install | latest [PYTEST ARGS]"

if __name__ == "__main__":
    if sys.argv[1:] == ["install"]:
        install()
    elif sys.argv[1:2] == ["latest"]:
        sys.exit(latest(sys.argv[2:]))
    else:
        sys.exit(USAGE)
