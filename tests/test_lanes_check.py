"""`toolgate lanes --check`: drift between each installed lane's --help and toolgate's table.

Fake lanes print help pages built from toolgate's own tables, with one option added or one
removed; the help texts of real releases are in tests/data/lane-help (copied from the lanes'
own `--help`), and the real pinned binaries are checked in tests/e2e/test_lanes_check_real.py.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import run_toolgate
from toolgate_cli import exitcodes
from toolgate_cli.lanes import LANES
from toolgate_cli.lanes.drift import HelpSurface, compare, help_options, lane_report

FAKE = """#!{python}
import os, sys
pages = {pages!r}
key = " ".join(sys.argv[1:])
if key not in pages:
    sys.exit(2)
sys.stdout.write(pages[key])
"""

CLAUDE_HELP = """Usage: claude [options] [command] [prompt]

Options:
{options}
  -h, --help                            Display help for command
  -v, --version                         Output the version number
"""


def claude_help(extra: str = "", drop: str = "") -> str:
    """A claude help page listing every option the table knows (one per line, as commander
    prints them), plus `extra`, minus `drop`."""
    table = LANES["claude"].module.FLAGS  # type: ignore[attr-defined]
    lines = []
    for spec in table.specs:
        names = [name for name in spec.names if name != drop]
        if names and spec.canonical not in ("--help", "--version"):
            lines.append("  " + ", ".join(sorted(names, key=len)) + "   does a thing")
    if extra:
        lines.append(f"  {extra} <value>                 a new option; see also --tools")
    return CLAUDE_HELP.format(options="\n".join(lines))


def codex_pages() -> dict[str, str]:
    module = LANES["codex"].module
    pages = {}
    for surface in module.help_surfaces():
        options = "\n".join(f"      {name}\n          text" for name in sorted(surface.known))
        pages[" ".join(surface.args)] = f"Usage: codex\n\nOptions:\n{options}\n"
    return pages


def install(directory: Path, kind: str, version_output: str, pages: dict[str, str]) -> None:
    lane = directory / kind
    lane.write_text(
        FAKE.format(python=sys.executable, pages={"--version": version_output, **pages})
    )
    lane.chmod(0o755)


def check(directory: Path, tmp_path: Path, *args: str) -> tuple[int, dict[str, object]]:
    env = {
        "PATH": f"{directory}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
    }
    result = run_toolgate(["lanes", "--check", "--json", *args], env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "bin"
    directory.mkdir()
    return directory


def by_kind(document: dict[str, object]) -> dict[str, dict[str, object]]:
    lanes = document["lanes"]
    assert isinstance(lanes, list)
    return {entry["kind"]: entry for entry in lanes}


def newest(kind: str) -> str:
    return LANES[kind].versions.newest_proven


def test_a_proven_drift_free_lane_passes_and_a_missing_one_does_not_fail(
    bin_dir: Path, tmp_path: Path
) -> None:
    install(bin_dir, "claude", f"{newest('claude')} (Claude Code)\n", {"--help": claude_help()})
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.OK and document["ok"] is True
    lanes = by_kind(document)
    assert set(lanes) == set(LANES)
    assert lanes["claude"] == {
        "kind": "claude",
        "path": str(bin_dir / "claude"),
        "version": newest("claude"),
        "proven": True,
        "unknown_options": [],
        "missing_options": [],
        "problem": None,
    }
    for kind in set(LANES) - {"claude"}:
        assert lanes[kind]["path"] is None and lanes[kind]["proven"] is None


def test_an_option_the_table_does_not_know_is_reported_and_fails(
    bin_dir: Path, tmp_path: Path
) -> None:
    install(
        bin_dir,
        "claude",
        f"{newest('claude')} (Claude Code)\n",
        {"--help": claude_help(extra="--brand-new-flag")},
    )
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.NOT_ADMITTED and document["ok"] is False
    assert by_kind(document)["claude"]["unknown_options"] == ["--brand-new-flag"]


def test_an_option_toolgate_relies_on_that_the_help_lost_is_missing(
    bin_dir: Path, tmp_path: Path
) -> None:
    install(
        bin_dir,
        "claude",
        f"{newest('claude')} (Claude Code)\n",
        {"--help": claude_help(drop="--strict-mcp-config")},
    )
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.NOT_ADMITTED
    assert by_kind(document)["claude"]["missing_options"] == ["--strict-mcp-config"]


def test_a_subcommand_page_names_its_subcommand(bin_dir: Path, tmp_path: Path) -> None:
    pages = codex_pages()
    pages["exec --help"] += "      --exec-only-novelty\n          new\n"
    install(bin_dir, "codex", f"codex-cli {newest('codex')}\n", pages)
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.NOT_ADMITTED
    assert by_kind(document)["codex"]["unknown_options"] == ["exec --exec-only-novelty"]


def test_an_unproven_version_fails_even_without_drift(bin_dir: Path, tmp_path: Path) -> None:
    install(bin_dir, "codex", "codex-cli 99.0.0\n", codex_pages())
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.NOT_ADMITTED
    codex = by_kind(document)["codex"]
    assert (codex["version"], codex["proven"], codex["unknown_options"]) == ("99.0.0", False, [])


def test_a_lane_that_cannot_tell_or_print_help_is_a_problem(bin_dir: Path, tmp_path: Path) -> None:
    install(bin_dir, "claude", "no version here\n", {})
    status, document = check(bin_dir, tmp_path)
    assert status == exitcodes.NOT_ADMITTED
    claude = by_kind(document)["claude"]
    assert claude["version"] is None and claude["proven"] is False
    assert "did not name a version" in str(claude["problem"])
    assert "could not read claude --help" in str(claude["problem"])


def test_the_person_view_names_the_drift(bin_dir: Path, tmp_path: Path) -> None:
    install(
        bin_dir,
        "claude",
        "99.1.2 (Claude Code)\n",
        {"--help": claude_help(extra="--brand-new-flag")},
    )
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
        "NO_COLOR": "1",
    }
    result = run_toolgate(["lanes", "--check"], env=env)
    assert result.returncode == exitcodes.NOT_ADMITTED
    assert "--brand-new-flag" in result.stdout
    assert "99.1.2, not proven" in result.stdout
    assert "not installed" in result.stdout  # codex
    assert "\x1b[" not in result.stdout


# --- the pure parts --------------------------------------------------------------------------


def test_help_options_reads_only_the_names_column() -> None:
    text = """Options:
  -c, --continue                        Continue; see --resume
  --allowedTools, --allowed-tools <tools...>
      Comma or space-separated list (e.g. "--not-an-option")
  --tmux                                use --tmux=classic for tmux
      --fleet
          Run it; combine with -i, -p
  -s, --sandbox <SANDBOX_MODE>
  --prompt-suggestions [value]          (choices: "true")
  --model=<model>                       a model
                                        --system-prompt[-file],
Arguments:
  prompt                                Your prompt
"""
    assert help_options(text) == {
        "-c",
        "--continue",
        "--allowedTools",
        "--allowed-tools",
        "--tmux",
        "--fleet",
        "-s",
        "--sandbox",
        "--prompt-suggestions",
        "--model",
    }


HELP_TEXTS = Path(__file__).resolve().parent / "data" / "lane-help"


@pytest.mark.parametrize("path", sorted(HELP_TEXTS.glob("*.txt")), ids=lambda path: path.stem)
def test_help_options_of_real_help_texts_are_option_names_from_option_lines(path: Path) -> None:
    text = path.read_text()
    found = help_options(text)
    assert found, "every lane help lists options"
    for name in found:
        # where it is listed: near the margin, first or after other names of the same option
        listed = re.compile(rf"^ {{1,8}}(-[\w-]+, )*{re.escape(name)}(?![\w-])", re.MULTILINE)
        assert listed.search(text), name


def test_the_claude_table_covers_the_help_of_every_supported_release_kept_here() -> None:
    """The table was written from 2.1.197's help and extended to 2.1.332's, whose seven new
    options (--autocompact, --desktop, --environment, --forward-subagent-text,
    --permission-prompts, --restricted, --system-prompt-snapshot) were refused as unknown
    until it decided them; the hidden ones are checked against the binary in tests/e2e."""
    table = frozenset(LANES["claude"].module.FLAGS.names())  # type: ignore[attr-defined]
    for release in ("2.1.197", "2.1.332"):
        listed = help_options((HELP_TEXTS / f"claude-{release}.help.txt").read_text())
        assert listed <= table, (release, sorted(listed - table))


def test_compare_and_report() -> None:
    drift = compare({"--a", "--b", "--new"}, {"--a", "--b", "--gone"}, {"--a", "--gone"})
    assert (drift.unknown_options, drift.missing_options) == (("--new",), ("--gone",))
    versions = LANES["claude"].versions
    surface = HelpSurface(("--help",), frozenset({"--a"}), frozenset({"--a"}))
    report = lane_report("claude", None, None, versions, [])
    assert report.ok and report.as_json()["path"] is None
    report = lane_report(
        "claude", "/x/claude", versions.newest_proven, versions, [(surface, "  --a  x\n")]
    )
    assert report.ok
