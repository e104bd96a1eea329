"""Independent models of the lane parsers, used as oracles by the grammar and property tests.

They are written from the parsers themselves, not from toolgate's `argv` module, so a test can
ask "what would the lane read?" without trusting the code under test:

- `commander_parse` transliterates commander.js `Command.parseOptions` as bundled in claude
  2.1.197 (read out of the binary: `grep -ao 'parseOptions(e){.*' claude`), plus the dispatch
  rule of `_parseCommand`: the first operand (before or after `--`) names a subcommand.
- `clap_parse` follows clap_builder's `Parser::get_matches_with` for the settings codex (clap
  4) and copilot (clap_builder 4.6.7, in its `cli-native.node`) use: no hyphen values, an
  attached value (`--x=v`, `-xv`, `-x=v`) always completes the option, a multi-value option
  keeps taking words until one starts with `-`, an option whose values are optional
  (`num_args(0..=1)`, `num_args(0..)`) may end with none, a positional word that names a
  subcommand is the subcommand unless an option is still collecting values (copilot 1.0.102:
  `--share mcp --help` prints the top-level help, `mcp` went to `--share`), `--` ends options.

Both return the option occurrences in order (`Event`s: canonical name and the values it got)
and the operands, or raise `ParseError` where the real parser would exit with a usage error.
The option tables are only read for names and arity (`FlagSpec.names`, `FlagSpec.arity`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from toolgate_cli.argv import Arity, FlagSpec


class ParseError(Exception):
    """The real parser would stop with a usage error here."""


@dataclass
class Event:
    """One occurrence of an option: its canonical name, the spelling used, its values."""

    name: str
    written: str
    values: list[str] = field(default_factory=list)


@dataclass
class Parsed:
    events: list[Event]
    operands: list[str]
    """Positional words, including those after `--` (commander hands both to the action)."""
    terminator: int | None
    """Index in the parsed args of the `--` that ended the options, if any."""
    stopped_at: int
    """Index where parsing stopped (a subcommand name, or len(args))."""


def _index(specs: Iterable[FlagSpec]) -> dict[str, FlagSpec]:
    by_name: dict[str, FlagSpec] = {}
    for spec in specs:
        for name in spec.names:
            by_name[name] = spec
    return by_name


def _maybe_option(word: str) -> bool:
    return len(word) > 1 and word[0] == "-"


def commander_parse(args: Sequence[str], specs: Iterable[FlagSpec]) -> Parsed:
    """commander.js parseOptions: what claude's CLI reads from `args`.

    An unknown option is a ParseError (claude does not allow unknown options).
    """
    table = _index(specs)
    events: list[Event] = []
    operands: list[str] = []
    # (word, its index in args); a glued remainder commander pushes back has no index.
    queue: list[tuple[str, int | None]] = [(word, at) for at, word in enumerate(args)]
    active_variadic: Event | None = None

    while queue:
        arg, at = queue.pop(0)
        if arg == "--":
            operands.extend(word for word, _ in queue)
            return Parsed(events, operands, at, len(args))
        if active_variadic is not None and not _maybe_option(arg):
            active_variadic.values.append(arg)
            continue
        active_variadic = None
        if _maybe_option(arg):
            spec = table.get(arg)
            if spec is not None:
                event = Event(spec.names[0], arg)
                if spec.arity in (Arity.VALUE, Arity.VARIADIC):
                    if not queue:
                        raise ParseError(f"option {arg} argument missing")
                    event.values.append(queue.pop(0)[0])
                elif (
                    spec.arity in (Arity.OPTIONAL, Arity.ANY)
                    and queue
                    and not _maybe_option(queue[0][0])
                ):
                    event.values.append(queue.pop(0)[0])
                events.append(event)
                active_variadic = event if spec.arity in (Arity.VARIADIC, Arity.ANY) else None
                continue
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-":
            spec = table.get("-" + arg[1])
            if spec is not None:
                if spec.arity is not Arity.FLAG:
                    events.append(Event(spec.names[0], "-" + arg[1], [arg[2:]]))
                else:
                    events.append(Event(spec.names[0], "-" + arg[1]))
                    queue.insert(0, ("-" + arg[2:], None))
                continue
        if re.match(r"^--[^=]+=", arg):
            name, _, value = arg.partition("=")
            spec = table.get(name)
            if spec is not None and spec.arity is not Arity.FLAG:
                events.append(Event(spec.names[0], name, [value]))
                continue
        if _maybe_option(arg):
            raise ParseError(f"unknown option {arg!r}")
        operands.append(arg)
    return Parsed(events, operands, None, len(args))


def clap_parse(
    args: Sequence[str],
    specs: Iterable[FlagSpec],
    subcommands: Iterable[str] = (),
    *,
    start: int = 0,
) -> Parsed:
    """clap's parser loop over `args[start:]` for one command level.

    Stops at a positional word that names one of `subcommands` (unless an option is still
    collecting values, or after `--`), reporting its index in `stopped_at`.
    """
    table = _index(specs)
    names = set(subcommands)
    events: list[Event] = []
    operands: list[str] = []
    pending: Event | None = None  # an option still collecting values
    pending_spec: FlagSpec | None = None
    index = start

    def close_pending() -> None:
        nonlocal pending, pending_spec
        optional = pending_spec is not None and pending_spec.arity in (Arity.OPTIONAL, Arity.ANY)
        if pending is not None and not pending.values and not optional:
            raise ParseError(f"a value is required for {pending.written}")
        pending, pending_spec = None, None

    while index < len(args):
        word = args[index]
        index += 1
        if pending is None and word in names:
            return Parsed(events, operands, None, index - 1)
        if word == "--":
            close_pending()
            operands.extend(args[index:])
            return Parsed(events, operands, index - 1, len(args))
        if word.startswith("--"):
            close_pending()
            name, has_equals, value = word.partition("=")
            spec = table.get(name)
            if spec is None:
                raise ParseError(f"unexpected argument {name!r}")
            event = Event(spec.names[0], name)
            events.append(event)
            if spec.arity is Arity.FLAG:
                if has_equals:
                    raise ParseError(f"unexpected value for {name}")
            elif has_equals:
                event.values.append(value)
            else:
                pending, pending_spec = event, spec
            continue
        if _maybe_option(word):
            close_pending()
            rest = word[1:]
            while rest:
                spec = table.get("-" + rest[0])
                if spec is None:
                    raise ParseError(f"unexpected argument '-{rest[0]}'")
                event = Event(spec.names[0], "-" + rest[0])
                events.append(event)
                rest = rest[1:]
                if spec.arity is Arity.FLAG:
                    continue
                if rest:
                    event.values.append(rest.removeprefix("="))
                else:
                    pending, pending_spec = event, spec
                break
            continue
        if pending is not None and pending_spec is not None:
            pending.values.append(word)
            if pending_spec.arity not in (Arity.VARIADIC, Arity.ANY):
                pending, pending_spec = None, None
            continue
        operands.append(word)
    close_pending()
    return Parsed(events, operands, None, len(args))
