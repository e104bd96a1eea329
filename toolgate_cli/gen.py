"""Regenerate the files derived from the click app: completions/ and man/toolgate.1.

    python -m toolgate_cli.gen            # rewrite them in this checkout
    python -m toolgate_cli.gen --check    # exit 1 and name the files that drifted

The files come from whatever commands are registered in LAZY_COMMANDS, so after a new command
is added, this one command brings them up to date. tests/test_completions.py and
tests/test_man.py fail while they are stale.
"""

from __future__ import annotations

import argparse
import os
import sys

from toolgate_cli import __version__

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The directory holding the toolgate_cli package: the checkout when run from one."""

COMPLETION_FILES: dict[str, str] = {
    "bash": "completions/toolgate.bash",
    "zsh": "completions/toolgate.zsh",
    "fish": "completions/toolgate.fish",
}
MAN_PAGE = "man/toolgate.1"


def generated_files() -> dict[str, str]:
    """Every generated file: path relative to the checkout -> its exact content."""
    from toolgate_cli.cli import app
    from toolgate_cli.commands.completion import completion_script
    from toolgate_cli.manpage import exit_code_table, render_manpage

    files = {path: completion_script(app, shell) for shell, path in COMPLETION_FILES.items()}
    files[MAN_PAGE] = render_manpage(app, __version__, exit_code_table())
    return files


def stale_files(root: str) -> list[str]:
    """The generated files under `root` that are missing or differ from what the code makes."""
    stale = []
    for path, content in generated_files().items():
        try:
            with open(os.path.join(root, path), encoding="utf-8") as file:
                current = file.read()
        except FileNotFoundError:
            current = None
        if current != content:
            stale.append(path)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolgate_cli.gen", description=__doc__.split("\n\n")[0] if __doc__ else ""
    )
    parser.add_argument("--check", action="store_true", help="only report stale files (exit 1)")
    parser.add_argument("--root", default=CHECKOUT, help="the checkout (default: %(default)s)")
    options = parser.parse_args(argv)
    if not os.path.exists(os.path.join(options.root, "pyproject.toml")):
        print(
            f"{options.root} is not a toolgate checkout (no pyproject.toml); pass --root",
            file=sys.stderr,
        )
        return 2
    if options.check:
        stale = stale_files(options.root)
        for path in stale:
            print(f"stale: {path} (run python -m toolgate_cli.gen)", file=sys.stderr)
        return 1 if stale else 0
    for path, content in generated_files().items():
        target = os.path.join(options.root, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="\n") as file:
            file.write(content)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
