"""The click layer: parse, call the pure code, render. Nothing here decides anything.

Subcommands live one per module under `toolgate_cli.commands` and are imported only when
invoked (or when help/completion lists them), so `toolgate dispatch` pays for itself only.
"""

from __future__ import annotations

import importlib
import sys

import click

from toolgate_cli import __version__, exitcodes
from toolgate_cli.messages import shortened

# command name -> (module, attribute). Order here is the order `toolgate --help` lists them.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "dispatch": ("toolgate_cli.commands.dispatch", "dispatch"),
    "explain": ("toolgate_cli.commands.explain", "explain_command"),
    "rules": ("toolgate_cli.commands.rules", "rules"),
    "check-command": ("toolgate_cli.commands.check_command", "check_command"),
    "hook": ("toolgate_cli.commands.hook", "hook"),
    "lanes": ("toolgate_cli.commands.lanes", "lanes"),
    "completion": ("toolgate_cli.commands.completion", "completion"),
}

ROOT_HELP = """Make a coding-agent lane's own CLI enforce read-only, or refuse with a reason.

\b
Example:
  toolgate dispatch --read-only -- claude -p "review this diff"

\b
Exit status: 0 ok, 1 not admitted (check-command, rules), 2 usage error,
3 refused, 70 internal error, 73 cannot write (completion --install),
126/127 --exec could not run the lane.
"""


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, not at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*LAZY_COMMANDS, *sorted(set(super().list_commands(ctx)) - set(LAZY_COMMANDS))]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = target
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):  # pragma: no cover - wiring error
            raise TypeError(f"{module_name}.{attribute} is not a click command")
        return command


@click.group(
    cls=LazyGroup,
    help=ROOT_HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="toolgate")
def app() -> None:
    pass


def run(args: list[str]) -> int:
    """Run the click app on `args` and return the exit status; never lets a traceback out."""
    try:
        result = app.main(args=args, prog_name="toolgate", standalone_mode=False)
    except click.exceptions.Exit as stop:
        return stop.exit_code
    except click.UsageError as error:
        # One line, so a script's log shows the whole reason: no usage banner.
        where = error.ctx.command_path if error.ctx is not None else "toolgate"
        message = shortened(" ".join(error.format_message().split()))
        click.echo(f"{where}: error: {message} (see '{where} --help')", err=True)
        return error.exit_code
    except click.ClickException as error:
        click.echo(
            f"toolgate: error: {shortened(' '.join(error.format_message().split()))}", err=True
        )
        return error.exit_code
    except click.exceptions.Abort:
        click.echo("toolgate: aborted", err=True)
        return exitcodes.USAGE
    except BrokenPipeError:
        return exitcodes.OK
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the last line of defence: one line, no traceback
        detail = str(error).splitlines()[0] if str(error) else ""
        message = f"toolgate: internal error: {type(error).__name__}"
        click.echo(shortened(f"{message}: {detail}" if detail else message), err=True)
        return exitcodes.INTERNAL
    return result if isinstance(result, int) else exitcodes.OK


def main() -> None:
    sys.exit(run(sys.argv[1:]))
