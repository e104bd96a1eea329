"""Entry point for the `toolgate` console script and `python -m toolgate_cli`.

The Claude Code PreToolUse hook runs on every tool call, so `toolgate hook claude-pretooluse`
is routed here without importing click or rich; so is `toolgate dispatch`, which runs before every
lane launch, in the form a launcher sends it (`toolgate_cli.dispatch_main`). Everything else,
and anything those fast paths do not understand, goes through the click app.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Run toolgate with `argv` (default: the process arguments) and exit with its status."""
    args = sys.argv[1:] if argv is None else argv
    if args[:2] == ["hook", "claude-pretooluse"]:
        try:
            from toolgate_cli import hook_main

            status = hook_main.fast_path(args[2:])
        except Exception as error:
            # Claude Code runs the tool anyway after a hook exits 1 (a traceback): a broken hook
            # must exit 2, which blocks the call and shows this line to the model.
            sys.stderr.write(f"toolgate hook: internal error ({type(error).__name__}); blocked\n")
            sys.exit(2)
        if status is not None:
            sys.exit(status)
    elif args[:1] == ["dispatch"]:
        from toolgate_cli import dispatch_main

        status = dispatch_main.fast_path(args[1:])
        if status is not None:
            sys.exit(status)
    from toolgate_cli.cli import run

    sys.exit(run(args))


if __name__ == "__main__":
    main()
