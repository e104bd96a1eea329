"""man/toolgate.1: generated from the click app, clean under groff -ww, complete."""

from __future__ import annotations

import re
import shutil
import subprocess

import click
import pytest

from tests.conftest import REPO_ROOT, run_toolgate
from toolgate_cli import __version__, exitcodes
from toolgate_cli.cli import LAZY_COMMANDS, app
from toolgate_cli.gen import MAN_PAGE
from toolgate_cli.manpage import (
    exit_code_table,
    help_examples,
    render_manpage,
    roff_escape,
    walk_commands,
)

SECTIONS = [
    "NAME",
    "SYNOPSIS",
    "DESCRIPTION",
    "COMMANDS",
    "OPTIONS",
    "EXIT STATUS",
    "ENVIRONMENT",
    "EXAMPLES",
    "SEE ALSO",
]


@click.command(help="A command another branch registers.\n\n\b\nExample:\n  toolgate fake --loud")
@click.option("--loud", is_flag=True, help="Say it loudly.")
def fake_command(loud: bool) -> None:
    pass


def _root_context() -> click.Context:
    return click.Context(app, info_name="toolgate", **app.context_settings)


def _commands() -> list[tuple[click.Command, click.Context]]:
    return list(walk_commands(app, _root_context()))


def _groff(path) -> subprocess.CompletedProcess[str]:
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    return subprocess.run(
        ["groff", "-ww", "-man", "-Tutf8", str(path)],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=30,
    )


@pytest.fixture(scope="module")
def page_text() -> str:
    """The page as groff renders it, overstrike (bold) removed."""
    result = _groff(REPO_ROOT / MAN_PAGE)
    return re.sub(r".\x08", "", result.stdout)


def test_committed_page_matches_the_code():
    committed = (REPO_ROOT / MAN_PAGE).read_text(encoding="utf-8")
    assert committed == render_manpage(app, __version__, exit_code_table()), (
        f"{MAN_PAGE} is stale: run python -m toolgate_cli.gen"
    )


def test_groff_prints_no_warnings():
    result = _groff(REPO_ROOT / MAN_PAGE)
    assert result.returncode == 0
    assert result.stderr == ""
    assert "TOOLGATE(1)" in result.stdout


def test_every_section_is_there_in_order(page_text):
    headings = [line for line in page_text.splitlines() if line in SECTIONS]
    assert headings == SECTIONS


def test_every_registered_command_and_option_is_documented(page_text):
    commands = page_text.split("\nCOMMANDS\n", 1)[1].split("\nOPTIONS\n", 1)[0]
    for command, ctx in _commands():
        assert re.search(rf"^   {re.escape(ctx.command_path)} ", commands, re.MULTILINE)
        help_option = command.get_help_option(ctx)
        for param in command.get_params(ctx):
            if isinstance(param, click.Option) and not param.hidden and param is not help_option:
                for name in param.opts:
                    assert name in commands, f"{ctx.command_path}: {name} missing"


def test_every_exit_code_is_documented(page_text):
    section = page_text.split("\nEXIT STATUS\n", 1)[1].split("\nENVIRONMENT\n", 1)[0]
    values = {
        value
        for name, value in vars(exitcodes).items()
        if name.isupper() and isinstance(value, int)
    }
    assert values == {row.value for row in exit_code_table()}
    for value in values:
        assert re.search(rf"^       {value}\s", section, re.MULTILINE)


def test_every_command_help_carries_an_example():
    for command, ctx in [(app, _root_context()), *_commands()]:
        examples = help_examples(command.help)
        assert examples, f"{ctx.command_path} --help has no Example(s): block"
        assert any(ctx.command_path in line for line in examples), examples


def test_examples_section_gathers_them(page_text):
    section = page_text.split("\nEXAMPLES\n", 1)[1].split("\nSEE ALSO\n", 1)[0]
    for command, _ in _commands():
        for example in help_examples(command.help):
            assert example in section


def test_a_newly_registered_command_appears_after_regeneration(monkeypatch, tmp_path):
    monkeypatch.setitem(LAZY_COMMANDS, "fake", ("tests.test_man", "fake_command"))
    page = render_manpage(app, __version__, exit_code_table())
    assert '.SS "toolgate fake [OPTIONS]"' in page
    assert "toolgate fake \\-\\-loud" in page
    path = tmp_path / "toolgate.1"
    path.write_text(page, encoding="utf-8")
    assert _groff(path).stderr == ""


def test_roff_escape_neutralises_requests_and_non_ascii():
    assert roff_escape(".TH evil") == "\\&.TH evil"
    assert roff_escape("'br") == "\\(aqbr"  # a leading quote is no control line
    assert roff_escape("a\\b") == "a\\eb"
    assert roff_escape("--x") == "\\-\\-x"
    assert roff_escape("é\u202e") == "\\[u00E9]\\[u202E]"


def test_version_is_printed():
    result = run_toolgate(["--version"])
    assert result.returncode == 0
    assert result.stdout.strip() == f"toolgate, version {__version__}"
