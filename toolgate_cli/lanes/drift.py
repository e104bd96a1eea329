"""Drift: what a lane's `--help` lists that toolgate's table does not know, and the reverse.

A new release adds options; toolgate refuses each as unknown until its table decides it, which
is correct and is also friction. `toolgate lanes --check` reads each installed lane's help and
reports, per lane, `unknown_options` (in the help, not in the table) and `missing_options`
(options toolgate adds or relies on that the help no longer lists). This module is the pure
part: reading option names out of help text and comparing them; running the binaries is
`toolgate_cli.lane_probe`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.lanes.versions import LaneVersions


@dataclass(frozen=True)
class HelpSurface:
    """One help page of a lane and what toolgate's table says about it.

    - `args`: what to run after the binary to print it (`("--help",)`, `("exec", "--help")`);
    - `known`: every option name the table that reads this command's options knows;
    - `relied`: options toolgate adds or relies on, on every supported version;
    - `gated`: options toolgate adds only on versions that have them (keys of the lane's
      `LaneVersions.since`): relied on only where the version has them.
    """

    args: tuple[str, ...]
    known: frozenset[str]
    relied: frozenset[str] = frozenset()
    gated: frozenset[str] = frozenset()

    def relied_on(self, versions: LaneVersions, version: str | None) -> frozenset[str]:
        """The options this page must list for `version`."""
        return self.relied | {option for option in self.gated if versions.has(option, version)}


# An option line starts near the left margin (commander indents options by 2, clap by 2 or 6);
# descriptions, wrapped or on a line of their own, are indented further or start with a word.
_OPTION_LINE = re.compile(r"^ {1,8}(-[^\s].*)$")
_NAME = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_-]*")


def help_options(text: str) -> frozenset[str]:
    """Every option name a help text lists in its option lines (`-c, --continue`,
    `--allowedTools, --allowed-tools <tools...>`, `      --fleet`).

    Only the names column is read: after the names come a value placeholder (`<x>`, `[x]`,
    `=<x>`) or two spaces and the description, whose mentions of other options are not options.
    """
    found: set[str] = set()
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match is None:
            continue
        names_column = re.split(r"\s{2,}| <| \[|=|\s+[A-Z]{2,}\b", match.group(1), maxsplit=1)[0]
        for part in names_column.split(","):
            name = _NAME.match(part.strip())
            if name is not None and name.group(0) == part.strip().split(" ")[0]:
                found.add(name.group(0))
    return frozenset(found)


@dataclass(frozen=True)
class Drift:
    """The comparison of one help page with toolgate's table."""

    unknown_options: tuple[str, ...]
    missing_options: tuple[str, ...]


def compare(listed: Iterable[str], known: Iterable[str], relied: Iterable[str]) -> Drift:
    """`listed` (a help page's options) against the table's `known` names and the `relied` ones."""
    listed_set = frozenset(listed)
    return Drift(
        tuple(sorted(listed_set - frozenset(known))),
        tuple(sorted(frozenset(relied) - listed_set)),
    )


@dataclass(frozen=True)
class LaneReport:
    """One lane in `toolgate lanes --check`: where it is installed, its version, whether that
    version is proven, and its drift from toolgate's table (see `lane_report`)."""

    kind: str
    path: str | None
    version: str | None
    proven: bool | None
    unknown_options: tuple[str, ...]
    missing_options: tuple[str, ...]
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """Not installed, or installed at a proven version with no drift and no problem."""
        if self.path is None:
            return True
        return bool(self.proven) and not (
            self.unknown_options or self.missing_options or self.problem
        )

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "path": self.path,
            "version": self.version,
            "proven": self.proven,
            "unknown_options": list(self.unknown_options),
            "missing_options": list(self.missing_options),
            "problem": self.problem,
        }


def lane_report(
    kind: str,
    path: str | None,
    version: str | None,
    versions: LaneVersions,
    pages: Iterable[tuple[HelpSurface, str | None]],
) -> LaneReport:
    """The report for lane `kind` installed at `path` (None: not on PATH) at `version` (None:
    it did not tell), given each help page's text (None: the page could not be read).

    An option of a subcommand's page is named with the subcommand (`exec --new-flag`), so the
    report says which table to extend.
    """
    if path is None:
        return LaneReport(kind, None, None, None, (), ())
    proven = (
        version is not None
        and versions.fit(kind, version, asked=True, require_proven=False).proven is True
    )
    unknown: list[str] = []
    missing: list[str] = []
    unreadable: list[str] = []
    for surface, text in pages:
        where = " ".join(word for word in surface.args if word != "--help")
        if text is None:
            unreadable.append(" ".join((kind, *surface.args)))
            continue
        drift = compare(help_options(text), surface.known, surface.relied_on(versions, version))
        unknown += [f"{where} {name}".strip() for name in drift.unknown_options]
        missing += [f"{where} {name}".strip() for name in drift.missing_options]
    problem = None
    if version is None:
        problem = f"{kind} --version did not name a version toolgate can read"
    if unreadable:
        problem = "; ".join(filter(None, [problem, f"could not read {', '.join(unreadable)}"]))
    return LaneReport(kind, path, version, proven, tuple(unknown), tuple(missing), problem)
