"""The claude table covers the pinned binary's own option definitions, hidden ones included.

`claude --help` lists only part of what claude parses: commander options built with
`.hideHelp()` (2.1.332 has 61 of them: `--managed-settings`, `--await-initialize`,
`--project-config-root`, `--sdk-url`, ...) never show, and toolgate must decide each one all the
same. claude 2.1.332 is a native (Bun) binary whose JavaScript is stored in it as text, so the
test reads the root command's definitions straight out of the pinned binary: every
`.option("...")` and `new Option("...")` after `.name("claude")`, up to the end of that module.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from toolgate_cli.argv import Arity
from toolgate_cli.lanes import claude

pytestmark = pytest.mark.e2e

_DEFINITION = re.compile(
    r'(?:\.option|\.requiredOption|new [A-Za-z_$][\w$]*)\(\s*"((?:-[\w-]+(?:, )?)+)( [<\[][^"]*)?"'
)

ARITY_EXCEPTIONS = {
    # A commander flag, but claude's entry point reads `--tmux=classic` before commander does;
    # toolgate refuses it in every spelling, so it reads it as taking an optional value.
    "--tmux": Arity.OPTIONAL,
}


def root_option_definitions(binary: Path) -> dict[str, Arity]:
    """Every option the root `claude` command defines, with the arity its placeholder shows."""
    data = Path(os.path.realpath(binary)).read_bytes()
    start = data.find(b'.name("claude").description("Claude Code')
    assert start != -1, "the root command's definition is not in the binary"
    program = data[start : data.find(b"\x00", start)].decode("utf-8", "replace")
    found: dict[str, Arity] = {}
    for names, placeholder in _DEFINITION.findall(program):
        shown = placeholder.strip()
        if not shown:
            arity = Arity.FLAG
        elif shown.endswith(("...>", "...]")):
            arity = Arity.VARIADIC
        else:
            arity = Arity.VALUE if shown.startswith("<") else Arity.OPTIONAL
        for name in names.split(", "):
            found[name] = arity
    return found


def test_the_table_decides_every_option_the_pinned_claude_defines(claude_bin: Path) -> None:
    defined = root_option_definitions(claude_bin)
    assert len(defined) > 100, "too few definitions found to trust the reading"
    assert "--managed-settings" in defined, "hidden options were not read"
    unknown = sorted(name for name in defined if claude.FLAGS.get(name) is None)
    assert unknown == [], "options the pinned claude defines that the table does not decide"
    wrong = {
        name: (spec.arity, arity)
        for name, arity in defined.items()
        if (spec := claude.FLAGS.get(name)) is not None
        and spec.arity is not ARITY_EXCEPTIONS.get(name, arity)
    }
    assert wrong == {}, "table arity differs from the binary's definition"
