"""The argv grammar: split a lane's arguments the way that lane's own CLI parser would.

Each lane declares its options as data (a `FlagTable` of `FlagSpec` rows); this module turns an
argument list into `Item`s (options with their values, positionals, the `--` tail) following
the rules of the parser the lane is built on:

- `COMMANDER` (commander.js, used by claude): `--flag value`, `--flag=value`; a short flag
  glued to its value (`-nNAME`) or to further boolean flags (`-pc`); an optional value
  (`[value]`) is taken only when the next word does not start with `-`; a variadic option
  (`<tools...>`) takes the next word, then every following word until one starts with `-`;
  the `--flag=value` spelling of a variadic takes that one value and stops.
- `CLAP` (clap, used by codex and copilot): `--flag value`, `--flag=value`, `-s value`,
  `-svalue`, `-s=value`; a value that starts with `-` is a parse error rather than a value; a
  multi-value option takes words until the next one starting with `-`; an option whose value is
  optional (`[<v>]`, `[<v>...]`) takes none when the next word starts with `-`.

For both, `--` ends the options: it and everything after it form one untouched tail.

Pure code: no I/O, no click. Unknown options and malformed words are reported, never guessed:
the rewriters refuse what this module cannot place.
"""

from __future__ import annotations

from toolgate_cli.records import Choice, field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from toolgate_cli.lanes.base import RewriteOptions


class Arity(Choice):
    """How many values an option takes."""

    FLAG = "flag"
    """No value (`--verbose`)."""
    VALUE = "value"
    """Exactly one value (`--model opus`, `--model=opus`)."""
    OPTIONAL = "optional"
    """commander `[value]`: the next word when it does not start with `-`."""
    VARIADIC = "variadic"
    """commander `<v...>` / clap `num_args=1..`: one or more words up to the next `-` word."""
    ANY = "any"
    """clap `num_args=0..` (`[<v>...]` in its help; copilot's `--allow-tool`): zero or more
    words up to the next `-` word. `--x=v` takes that one value and stops, as for VARIADIC."""


class Action(Choice):
    """What a read-only rewrite does with an option the template carried."""

    KEEP = "keep"
    """Harmless to read-only: stays where it was."""
    REPLACE = "replace"
    """toolgate sets this option itself: the template's occurrence is removed."""
    STRIP = "strip"
    """Would widen what the lane may do: removed, the run goes on without it."""
    REFUSE = "refuse"
    """Cannot be made read-only (or is unverified): the whole dispatch is refused."""


if TYPE_CHECKING:
    Judge = Callable[[tuple[str, ...], "RewriteOptions"], tuple["Action", str]]
"""Decides the action for an option from its values (and the caller's declarations), for
options whose safety depends on them."""


class Dialect(Choice):
    """The argument parser a lane's CLI is built on."""

    COMMANDER = "commander"
    CLAP = "clap"


@record(frozen=True)
class FlagSpec:
    """One option of a lane's CLI and what read-only does with it.

    `names` lists every spelling, the canonical (long) one first. `reason` says why, in a few
    words; it is shown to people. `judge`, when set, decides action and reason from the
    option's values instead (for example codex `-c key=value` depends on the key).
    """

    names: tuple[str, ...]
    arity: Arity
    action: Action
    reason: str
    judge: Judge | None = None

    @property
    def canonical(self) -> str:
        return self.names[0]

    def decide(self, values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
        """The action and reason for one occurrence carrying `values`."""
        if self.judge is not None:
            return self.judge(values, options)
        return self.action, self.reason


@record(frozen=True)
class FlagTable:
    """A lane command's options, looked up by any spelling."""

    specs: tuple[FlagSpec, ...]
    _by_name: dict[str, FlagSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, FlagSpec] = {}
        for spec in self.specs:
            for name in spec.names:
                if name in by_name:
                    raise ValueError(f"option {name} is declared twice")
                by_name[name] = spec
        object.__setattr__(self, "_by_name", by_name)

    def get(self, name: str) -> FlagSpec | None:
        return self._by_name.get(name)

    def names(self) -> Iterable[str]:
        return self._by_name.keys()

    def with_extra(self, extra: Iterable[FlagSpec]) -> FlagTable:
        """This table plus `extra` rows (rows for names already known are an error).

        Without extra rows it is this very table: building the name index costs more than the
        rest of a typical rewrite, and every rewrite asks (measured in benchmarks/run.py).
        """
        rows = tuple(extra)
        return FlagTable((*self.specs, *rows)) if rows else self


class ItemKind(Choice):
    OPTION = "option"
    POSITIONAL = "positional"
    TAIL = "tail"
    """`--` and everything after it."""


@record(slots=True)
class Item:
    """A run of argv words that the lane's parser reads as one unit.

    `start`/`end` index the words in the argument list. For an option, `spec` is its table row,
    `written` the spelling used and `values` what it received. Several boolean short flags glued
    into one word (`-pc`) are one item each, sharing the same span and marked `glued`.

    Treat it as immutable. It is not declared frozen because a template makes one per word and
    a frozen dataclass costs about four times as much to build (measured: 1.0 us against 0.25 us).
    """

    kind: ItemKind
    start: int
    end: int
    spec: FlagSpec | None = None
    written: str = ""
    values: tuple[str, ...] = ()
    glued: bool = False


class ArgvError(ValueError):
    """The arguments cannot be placed: an unknown option, a missing value, a bad spelling.

    `word` is the argument at fault, so the refusal can name it.
    """

    def __init__(self, word: str, message: str) -> None:
        super().__init__(message)
        self.word = word
        self.message = message


def looks_like_option(word: str) -> bool:
    """Whether a parser would try to read `word` as an option (commander's `maybeOption`)."""
    return len(word) > 1 and word[0] == "-"


def tokenize(
    args: Sequence[str],
    table: FlagTable,
    dialect: Dialect,
    *,
    start: int = 0,
    stop_at_positional: Callable[[str], bool] | None = None,
) -> tuple[list[Item], int]:
    """Split `args[start:]` into items, driven by `table`, the way `dialect` parses.

    Stops before the first positional word for which `stop_at_positional` returns True (that is
    how a subcommand name hands the rest to the subcommand's own table) and returns the index
    where it stopped (`len(args)` when it read everything).

    Raises `ArgvError` for an option the table does not know, an option missing its value, or a
    value glued to an option that takes none.
    """
    items: list[Item] = []
    # Words a variadic option is still collecting; folded into its item when it closes. A list,
    # not tuple concatenation, so a 100,000-word variadic stays linear.
    variadic_words: list[str] | None = None

    def close_variadic(end: int) -> None:
        if variadic_words is not None and len(variadic_words) > len(items[-1].values):
            last = items[-1]
            items[-1] = Item(
                last.kind,
                last.start,
                end,
                last.spec,
                last.written,
                tuple(variadic_words),
                last.glued,
            )

    index = start
    while index < len(args):
        word = args[index]
        if word == "--":
            close_variadic(index)
            items.append(Item(ItemKind.TAIL, index, len(args)))
            return items, len(args)
        if variadic_words is not None and not looks_like_option(word):
            variadic_words.append(word)
            index += 1
            continue
        close_variadic(index)
        variadic_words = None
        if not looks_like_option(word):
            if stop_at_positional is not None and stop_at_positional(word):
                return items, index
            items.append(Item(ItemKind.POSITIONAL, index, index + 1))
            index += 1
            continue
        if word.startswith("--"):
            found, pending = _long_option(args, index, table)
        else:
            found, pending = _short_option(args, index, table, dialect)
        after = index + 1
        if pending:
            # The word only named the option: its values (if any) are the words that follow.
            named = found[-1]
            if named.spec is None:  # pragma: no cover - both parsers always attach a spec
                raise ArgvError(word, f"cannot place {word!r}")
            # A flag takes nothing: its item is complete. Items are built once where possible:
            # building them is most of what tokenizing costs (benchmarks/run.py).
            if named.spec.arity is not Arity.FLAG:
                last, after = _take_values(args, index, named.spec, named.written, dialect)
                found[-1] = (
                    Item(
                        last.kind,
                        last.start,
                        last.end,
                        last.spec,
                        last.written,
                        last.values,
                        named.glued,
                    )
                    if named.glued
                    else last
                )
                if named.spec.arity in (Arity.VARIADIC, Arity.ANY):
                    variadic_words = list(last.values)
        items.extend(found)
        index = after
    close_variadic(index)
    return items, index


def _long_option(args: Sequence[str], index: int, table: FlagTable) -> tuple[list[Item], bool]:
    """`--name` (pending: values still to be read) or `--name=value` (complete)."""
    word = args[index]
    name, has_equals, inline = word.partition("=")
    spec = table.get(name)
    if spec is None:
        raise ArgvError(name, f"unknown option {name}")
    if not has_equals:
        return [Item(ItemKind.OPTION, index, index + 1, spec, name)], True
    if spec.arity is Arity.FLAG:
        raise ArgvError(name, f"option {name} takes no value, got {word!r}")
    return [Item(ItemKind.OPTION, index, index + 1, spec, name, (inline,))], False


def _take_values(
    args: Sequence[str], index: int, spec: FlagSpec, written: str, dialect: Dialect
) -> tuple[Item, int]:
    """The option word at `args[index]` carried no value: read its value from what follows."""
    after = index + 1
    if spec.arity is Arity.FLAG:
        return Item(ItemKind.OPTION, index, after, spec, written), after
    following = args[after] if after < len(args) else None
    if spec.arity in (Arity.OPTIONAL, Arity.ANY):
        if following is None or looks_like_option(following):
            return Item(ItemKind.OPTION, index, after, spec, written), after
        return Item(ItemKind.OPTION, index, after + 1, spec, written, (following,)), after + 1
    if following is None:
        raise ArgvError(written, f"option {written} needs a value")
    if dialect is Dialect.CLAP and looks_like_option(following):
        # clap refuses a value that looks like a flag (no option here allows hyphen values).
        raise ArgvError(written, f"option {written} needs a value, got {following!r}")
    return Item(ItemKind.OPTION, index, after + 1, spec, written, (following,)), after + 1


def _short_option(
    args: Sequence[str], index: int, table: FlagTable, dialect: Dialect
) -> tuple[list[Item], bool]:
    """`-x` (pending: values still to be read), `-xVALUE`, `-x=VALUE` (clap), glued `-abc`.

    commander and clap agree that in a glued word each boolean flag passes the rest of the word
    on, and the first option that takes a value takes the rest of the word as that value. They
    differ on `-x=VALUE`: clap drops the `=`, commander keeps it as part of the value.
    """
    word = args[index]
    whole = table.get(word)
    if whole is not None:
        return [Item(ItemKind.OPTION, index, index + 1, whole, word)], True
    items: list[Item] = []
    rest = word[1:]
    while rest:
        name = "-" + rest[0]
        spec = table.get(name)
        if spec is None:
            raise ArgvError(name, f"unknown option {name} (in {word!r})")
        remainder = rest[1:]
        if spec.arity is Arity.FLAG:
            if remainder.startswith("="):
                raise ArgvError(name, f"option {name} takes no value, got {word!r}")
            items.append(Item(ItemKind.OPTION, index, index + 1, spec, name, glued=True))
            rest = remainder
            continue
        if not remainder:
            # Last letter of the word: its value is the next word, as if written alone.
            items.append(Item(ItemKind.OPTION, index, index + 1, spec, name, glued=bool(items)))
            return items, True
        if dialect is Dialect.CLAP and remainder.startswith("="):
            remainder = remainder[1:]
        items.append(Item(ItemKind.OPTION, index, index + 1, spec, name, (remainder,), glued=True))
        break
    if len(items) == 1:
        only = items[0]
        return [Item(only.kind, only.start, only.end, only.spec, only.written, only.values)], False
    return items, False
