"""Shell completions: generated from the click app, committed, installed where shells look."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from tests.conftest import REPO_ROOT, run_toolgate, toolgate_env
from toolgate_cli.cli import app
from toolgate_cli.commands.completion import SHELLS, completion_script, install_path
from toolgate_cli.gen import COMPLETION_FILES, generated_files, stale_files


@pytest.mark.parametrize("shell", SHELLS)
def test_committed_scripts_match_the_code(shell):
    committed = (REPO_ROOT / COMPLETION_FILES[shell]).read_text(encoding="utf-8")
    assert committed == completion_script(app, shell), (
        f"{COMPLETION_FILES[shell]} is stale: run python -m toolgate_cli.gen"
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_the_command_prints_what_clicks_own_machinery_prints(shell):
    printed = run_toolgate(["completion", shell])
    assert printed.returncode == 0
    from_click = run_toolgate([], env={"_TOOLGATE_COMPLETE": f"{shell}_source"})
    assert from_click.returncode == 0
    assert printed.stdout == from_click.stdout == completion_script(app, shell)


def test_gen_check_passes_on_this_checkout_and_names_a_drifted_file(tmp_path):
    assert stale_files(str(REPO_ROOT)) == []
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for path, content in generated_files().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content, encoding="utf-8")
    assert stale_files(str(tmp_path)) == []
    (tmp_path / COMPLETION_FILES["zsh"]).write_text("# edited by hand\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "toolgate_cli.gen", "--check", "--root", str(tmp_path)],
        env=toolgate_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert COMPLETION_FILES["zsh"] in result.stderr


# --- the scripts work in the real shells ----------------------------------------------------


@pytest.fixture
def toolgate_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a `toolgate` that runs this checkout."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "toolgate"
    launcher.write_text(
        f'#!/bin/sh\nexec {sys.executable} -m toolgate_cli "$@"\n', encoding="utf-8"
    )
    launcher.chmod(0o755)
    env = toolgate_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path)
    return env


def _shell(shell: str, script: str, env: dict[str, str]) -> str:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    result = subprocess.run(
        [shell, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return result.stdout


def _registered_commands() -> list[str]:
    ctx = click.Context(app)
    return [name for name in app.list_commands(ctx) if not app.get_command(ctx, name).hidden]


def test_bash_completes_every_registered_command_and_options(toolgate_on_path):
    script = f"""
source {REPO_ROOT / COMPLETION_FILES["bash"]}
complete_words() {{ COMPREPLY=(); COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ));
  _toolgate_completion toolgate; printf '%s\\n' "${{COMPREPLY[@]}}"; echo ---; }}
complete_words toolgate ''
complete_words toolgate ex
complete_words toolgate dispatch --read-
complete_words toolgate completion ''
"""
    commands, explain, options, shells, _ = _shell("bash", script, toolgate_on_path).split("---\n")
    assert commands.split() == _registered_commands()
    assert explain.split() == ["explain"]
    assert options.split() == ["--read-only", "--read-shell"]
    assert shells.split() == list(SHELLS)


def test_fish_completes_subcommands(toolgate_on_path):
    script = f"source {REPO_ROOT / COMPLETION_FILES['fish']}; complete -C 'toolgate '"
    lines = _shell("fish", script, toolgate_on_path).splitlines()
    assert [line.split("\t")[0] for line in lines] == sorted(_registered_commands())


def test_zsh_loads_the_script_and_toolgate_answers_its_protocol(toolgate_on_path):
    script = f"""
autoload -U compinit && compinit -u -d {toolgate_on_path["HOME"]}/.zcompdump
source {REPO_ROOT / COMPLETION_FILES["zsh"]}
whence -w _toolgate_completion
env COMP_WORDS="toolgate ex" COMP_CWORD=1 _TOOLGATE_COMPLETE=zsh_complete toolgate
"""
    lines = _shell("zsh", script, toolgate_on_path).splitlines()
    assert lines[0] == "_toolgate_completion: function"
    assert lines[1:3] == ["plain", "explain"]


# --- toolgate completion with no shell named ----------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_the_current_shell_is_detected(shell, toolgate_on_path):
    # `; true` keeps the shell alive as the parent (no exec of the last command).
    printed = _shell(shell, "toolgate completion; true", toolgate_on_path)
    assert printed == completion_script(app, shell)


def test_an_unsupported_shell_gets_a_usage_error(toolgate_on_path):
    env = dict(toolgate_on_path, SHELL="/bin/tcsh")
    if shutil.which("sh") is None:
        pytest.skip("sh is not installed")
    result = subprocess.run(
        ["sh", "-c", "toolgate completion; echo status=$?"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "status=2" in result.stdout
    assert "name one: toolgate completion bash|zsh|fish" in result.stderr
    assert "Traceback" not in result.stderr


# --- --install ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shell", "relative"),
    [
        ("bash", ".local/share/bash-completion/completions/toolgate"),
        ("zsh", ".zfunc/_toolgate"),
        ("fish", ".config/fish/completions/toolgate.fish"),
    ],
)
def test_install_writes_where_the_shell_looks_and_says_where(tmp_path, shell, relative):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""}
    env["BASH_COMPLETION_USER_DIR"] = ""
    result = run_toolgate(["completion", shell, "--install"], env=env)
    assert result.returncode == 0, result.stderr
    target = tmp_path / relative
    assert target.read_text(encoding="utf-8") == completion_script(app, shell)
    assert str(target) in result.stdout
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == [target]


def test_install_follows_xdg_directories(tmp_path):
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "BASH_COMPLETION_USER_DIR": "",
    }
    assert install_path("bash", env) == str(tmp_path / "data/bash-completion/completions/toolgate")
    assert install_path("fish", env) == str(tmp_path / "config/fish/completions/toolgate.fish")
    env["BASH_COMPLETION_USER_DIR"] = str(tmp_path / "bc")
    assert install_path("bash", env) == str(tmp_path / "bc/completions/toolgate")


def test_zsh_install_says_how_to_put_the_directory_on_fpath(tmp_path):
    result = run_toolgate(["completion", "zsh", "--install"], env={"HOME": str(tmp_path)})
    assert "fpath=(~/.zfunc $fpath)" in result.stdout


def test_an_installed_zsh_function_loads_from_fpath(tmp_path, toolgate_on_path):
    run_toolgate(["completion", "zsh", "--install"], env={"HOME": str(tmp_path)})
    script = f"""
fpath=({tmp_path}/.zfunc $fpath)
autoload -U compinit && compinit -u -d {tmp_path}/.zcompdump
print -r -- $_comps[toolgate]
"""
    assert _shell("zsh", script, toolgate_on_path).strip() == "_toolgate"


def test_install_that_cannot_write_exits_73_in_one_line(tmp_path):
    blocker = tmp_path / "home"
    blocker.write_text("a file where a directory must go", encoding="utf-8")
    result = run_toolgate(
        ["completion", "fish", "--install"], env={"HOME": str(blocker), "XDG_CONFIG_HOME": ""}
    )
    assert result.returncode == 73
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("toolgate: cannot write ")
    assert result.stdout == ""


def test_help_carries_an_example():
    result = run_toolgate(["completion", "--help"])
    assert "toolgate completion --install" in result.stdout
