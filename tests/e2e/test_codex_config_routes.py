"""Writes that reach the tree through codex's configuration, not through the template's flags.

The template is a plain `codex exec`; what widens the run is a file in CODEX_HOME (the user's
config, a profile, execpolicy rules, trusted hooks) or the project's `.codex/` layer that the
user's config trusts. Each was measured with codex 0.171.0 to write into the tree under
`codex exec --sandbox read-only` (the seed's rewrite). The CONTROL leg runs the template
directly; the GATED leg runs it through `toolgate dispatch --read-only --exec` and nothing may
change. Measured closers: `--ignore-user-config`, `--ignore-rules`, `--disable hooks`,
`--disable shell_snapshot`, `-c approval_policy="never"` (details in the lead's findings notes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.codex_harness import (
    ESCALATED_TOUCH,
    MCP_WRITER,
    STUB_NO_MODEL_FLAG,
    TREE,
    Leg,
    Setup,
    assert_control_wrote,
    assert_gated_held,
    codex_env,
    control_and_gated,
    exec_template,
)
from tests.e2e.stub_openai import FunctionCall, shell

pytestmark = pytest.mark.e2e

TOUCH = (shell("touch X"),)


def _write_config(codex_home: Path, text: str, name: str = "config.toml") -> None:
    codex_home.mkdir(parents=True, exist_ok=True)
    with (codex_home / name).open("a", encoding="utf-8") as handle:
        handle.write(text)


def _mcp_server_toml(name: str = "w") -> str:
    return (
        f"[mcp_servers.{name}]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f'args = [{json.dumps(str(MCP_WRITER))}, "--readonly-hint"]\n'
    )


def _run_both(
    codex_bin: Path,
    tmp_path: Path,
    template: list[str],
    script: tuple[FunctionCall, ...],
    setup: Setup,
) -> tuple[Leg, Leg]:
    return control_and_gated(codex_bin, template, tmp_path, script=script, setup=setup)


PLAIN_EXEC = exec_template(["exec"])


def test_user_config_sandbox_mode(codex_bin: Path, tmp_path: Path) -> None:
    # codex exec without flags takes sandbox_mode from the user's config.
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, 'sandbox_mode = "danger-full-access"\n')

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, TOUCH, setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)


def test_user_config_permission_profile(codex_bin: Path, tmp_path: Path) -> None:
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, 'default_permissions = ":danger-full-access"\n')

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, TOUCH, setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)


def test_profile_flag_sandbox_mode(codex_bin: Path, tmp_path: Path) -> None:
    # -p NAME layers $CODEX_HOME/NAME.config.toml on top of the user's config.
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, 'sandbox_mode = "danger-full-access"\n', "wide.config.toml")

    template = exec_template(["exec", "-p", "wide"])
    control, gated = _run_both(codex_bin, tmp_path, template, TOUCH, setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)


def test_user_config_notify(codex_bin: Path, tmp_path: Path) -> None:
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, f'notify = ["sh", "-c", "touch {tree}/NOTIFIED"]\n')

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, (), setup)
    assert_control_wrote(control, ["new: NOTIFIED"])
    assert_gated_held(gated, tool_attempted=False)


def test_user_config_mcp_server(codex_bin: Path, tmp_path: Path) -> None:
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, _mcp_server_toml())

    call = (FunctionCall("write", {"path": f"{TREE}/M"}, namespace="mcp__w"),)
    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, call, setup)
    assert_control_wrote(control, ["new: M"])
    assert_gated_held(gated, tool_attempted=True)


def _install_plugin_with_mcp_server(codex_bin: Path, codex_home: Path) -> None:
    """A plugin the user installed from a local marketplace (`codex plugin add`), bringing an
    MCP server whose tool writes: codex records it as `[plugins."p@m"]` in config.toml."""
    market = codex_home.parent / "market"
    plugin = market / "plugins" / "p"
    entry = {
        "name": "p",
        "source": {"source": "local", "path": "./plugins/p"},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "Productivity",
    }
    (market / ".agents" / "plugins").mkdir(parents=True)
    (market / ".agents" / "plugins" / "marketplace.json").write_text(
        json.dumps({"name": "m", "plugins": [entry]})
    )
    (plugin / ".codex-plugin").mkdir(parents=True)
    manifest = {"name": "p", "version": "1.0.0", "description": "e2e", "mcpServers": "./.mcp.json"}
    (plugin / ".codex-plugin" / "plugin.json").write_text(json.dumps(manifest))
    server = {"command": sys.executable, "args": [str(MCP_WRITER), "--readonly-hint"]}
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"w": server}}))
    env = {**os.environ, **codex_env(codex_home.parent)}
    for args in (("marketplace", "add", str(market)), ("add", "p@m")):
        subprocess.run(
            [str(codex_bin), "plugin", *args], env=env, capture_output=True, check=True, timeout=60
        )


def test_user_installed_plugin_mcp_server(codex_bin: Path, tmp_path: Path) -> None:
    # Measured with 0.171.0: the plugin's MCP server starts in a plain `codex exec` and its tool
    # writes the tree (MCP servers run outside the sandbox); `--ignore-user-config` leaves the
    # plugin disabled, so the tool does not exist.
    def setup(tree: Path, home: Path) -> None:
        _install_plugin_with_mcp_server(codex_bin, home)

    call = (FunctionCall("write", {"path": f"{TREE}/M"}, namespace="mcp__w"),)
    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, call, setup)
    assert_control_wrote(control, ["new: M"])
    assert_gated_held(gated, tool_attempted=True)


def test_profile_flag_mcp_server(codex_bin: Path, tmp_path: Path) -> None:
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, _mcp_server_toml(), "tools.config.toml")

    call = (FunctionCall("write", {"path": f"{TREE}/M"}, namespace="mcp__w"),)
    template = exec_template(["exec", "-p", "tools"])
    control, gated = _run_both(codex_bin, tmp_path, template, call, setup)
    assert_control_wrote(control, ["new: M"])
    assert_gated_held(gated, tool_attempted=True)


def test_user_execpolicy_rule_allows_touch(codex_bin: Path, tmp_path: Path) -> None:
    # An `allow` rule runs the matching command outside the sandbox.
    def setup(tree: Path, home: Path) -> None:
        (home / "rules").mkdir(parents=True)
        (home / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["touch"], decision="allow")\n'
        )

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, TOUCH, setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)


def test_user_config_auto_review(codex_bin: Path, tmp_path: Path) -> None:
    # The guardian (the same, attacker-controlled model) approves an escalated command.
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, 'approval_policy = "on-request"\napprovals_reviewer = "auto_review"\n')

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, (ESCALATED_TOUCH,), setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)


def test_trusted_project_layer(codex_bin: Path, tmp_path: Path) -> None:
    # The user's config trusts the project; the project's .codex/ layer brings an MCP server
    # and an exec-policy rule.
    def setup(tree: Path, home: Path) -> None:
        _write_config(home, f'[projects."{tree}"]\ntrust_level = "trusted"\n')
        (tree / ".codex" / "rules").mkdir(parents=True)
        (tree / ".codex" / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["touch"], decision="allow")\n'
        )
        (tree / ".codex" / "config.toml").write_text(_mcp_server_toml())

    script = (
        shell("touch X"),
        FunctionCall("write", {"path": f"{TREE}/M"}, namespace="mcp__w"),
    )
    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, script, setup)
    assert_control_wrote(control, ["new: X", "new: M"])
    assert_gated_held(gated, tool_attempted=True)


def _trust_hooks(codex_bin: Path, tree: Path, home: Path) -> None:
    """Persist trust for every hook in the user's config, as the TUI's /hooks would: ask
    `codex app-server` for each hook's key and current hash, write them to hooks.state."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "e2e", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(tree)]}},
    ]
    env = {**os.environ, **codex_env(home.parent)}
    proc = subprocess.Popen(
        [str(codex_bin), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tree,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        proc.stdin.flush()
        for raw in proc.stdout:
            message = json.loads(raw)
            if message.get("id") == 2:
                hooks = message["result"]["data"][0]["hooks"]
                break
        else:
            raise AssertionError("codex app-server did not answer hooks/list")
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert hooks, "no hooks listed"
    _write_config(
        home,
        "".join(
            f"\n[hooks.state.{json.dumps(h['key'])}]\n"
            f"trusted_hash = {json.dumps(h['currentHash'])}\n"
            for h in hooks
        ),
    )


def test_user_trusted_hooks(codex_bin: Path, tmp_path: Path) -> None:
    # Hooks the user has trusted run unsandboxed, with no bypass flag.
    def setup(tree: Path, home: Path) -> None:
        _write_config(
            home,
            "[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\n"
            f'type = "command"\ncommand = "touch {tree}/HOOKED"\n',
        )
        _trust_hooks(codex_bin, tree, home)

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, (), setup)
    assert_control_wrote(control, ["new: HOOKED"])
    assert_gated_held(gated, tool_attempted=False)


SHELL_START_UP_FILES = (".bashrc", ".bash_profile", ".profile", ".zshenv", ".zprofile", ".zshrc")


def test_user_shell_start_up_files(codex_bin: Path, tmp_path: Path) -> None:
    # Measured with 0.171.0: the shell snapshot (feature `shell_snapshot`, on by default) runs
    # the user's login shell and its start-up files OUTSIDE the sandbox, before the first
    # command; `--disable shell_snapshot` leaves them to the per-command login shell, which
    # runs inside the sandbox (its own writes then fail like the command's).
    def setup(tree: Path, home: Path) -> None:
        user_home = home.parent / "home"  # codex_env: HOME beside CODEX_HOME
        for name in SHELL_START_UP_FILES:
            (user_home / name).write_text(f"touch {tree}/rc-{name.lstrip('.')}\n")

    control, gated = _run_both(codex_bin, tmp_path, PLAIN_EXEC, TOUCH, setup)
    ran = [change for change in control.tree_changes if change.startswith("new: rc-")]
    assert ran, f"CONTROL: no start-up file wrote the tree\n{control.describe()}"
    assert_gated_held(gated, tool_attempted=True)


# `codex review` takes none of the closers, so toolgate runs it as `codex exec review` with them
# after `exec`. These prove that the closers reach the review run too.
PLAIN_REVIEW = ["review", STUB_NO_MODEL_FLAG, "--uncommitted"]


def _review_setup(rules: str) -> Setup:
    """An uncommitted change to review, plus the user's execpolicy rules."""

    def setup(tree: Path, home: Path) -> None:
        (tree / "src" / "app.py").write_text("def greet() -> str:\n    return 'hi'\n")
        (home / "rules").mkdir(parents=True, exist_ok=True)
        (home / "rules" / "default.rules").write_text(rules)

    return setup


def test_review_execpolicy_rule_is_closed_too(codex_bin: Path, tmp_path: Path) -> None:
    # Measured: an execpolicy allow rule runs `touch` outside the sandbox in a plain
    # `codex review` too. (The auto-review route does not open there: the review thread asks
    # with approval never, so it has no control that writes and is not a scenario.)
    setup = _review_setup('prefix_rule(pattern=["touch"], decision="allow")\n')
    control, gated = _run_both(codex_bin, tmp_path, PLAIN_REVIEW, TOUCH, setup)
    assert_control_wrote(control, ["new: X"])
    assert_gated_held(gated, tool_attempted=True)
