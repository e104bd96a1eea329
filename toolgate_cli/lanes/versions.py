"""Lane versions: which ones a rewrite supports and which are proven, and fitting one to a run.

A lane's CLI moves: options appear (claude's `--restricted`), tools change, defaults change. A
rewrite is written for the versions it was measured on, so each rewritten lane declares:

- `oldest_supported`: the oldest version its flag table understands; anything older is refused
  with what to upgrade to (an option toolgate relies on may be missing or mean something else);
- `proven`: the versions the end-to-end suite runs in CI (newest last): only these are proven;
- `since`: the options the rewrite adds only to versions that have them, each with the first
  version that has it (adding an option a version lacks makes the lane exit on "unknown option").

`fit_version` turns what is known of the version that will run into a `VersionFit`: the version
the rewrite is fitted to, whether it is proven, a refusal, or the one notice line a caller sees
for a version that is supported but not proven.

Pure: no I/O. Reading a binary's version is `toolgate_cli.lane_probe`.
"""

from __future__ import annotations

from toolgate_cli.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_DIGITS = frozenset("0123456789")


def parse_version(text: str) -> tuple[int, ...] | None:
    """`"2.1.332"` as `(2, 1, 332)`; a leading `v` is allowed; None for anything else.

    Only dotted numbers are versions here: a pre-release or build suffix is not understood, so
    it is not a version toolgate can place (a caller gets a usage error, a binary is unproven).
    """
    text = text.strip()
    parts = (text[1:] if text.startswith("v") else text).split(".")
    if len(parts) < 2 or not all(part and set(part) <= _DIGITS for part in parts):
        return None
    return tuple(int(part) for part in parts)


def normal_version(text: str) -> str | None:
    """The version as toolgate writes it (`v2.1.332` is `2.1.332`), or None if it is none."""
    parsed = parse_version(text)
    return ".".join(str(part) for part in parsed) if parsed is not None else None


@record(frozen=True)
class VersionFit:
    """What the rewrite is fitted to, and what toolgate says about it.

    - `version`: the version the rewrite is fitted to (JSON `lane_version`); None when unknown,
      and then the rewrite adds only what every supported version has.
    - `proven`: JSON `version_proven`: True or False when the version is known or was asked
      for, None when nobody said which version will run.
    - `refusal`: one line when the dispatch must not run (older than supported, or not proven
      under `--require-proven`).
    - `notice`: the one stderr line for a version that runs although it is not proven.
    """

    version: str | None
    proven: bool | None
    refusal: str | None = None
    notice: str | None = None


UNKNOWN = VersionFit(None, None)
"""Nobody said which version will run (JSON output without --lane-version)."""


@record(frozen=True)
class LaneVersions:
    """The versions one lane's rewrite is for (see the module docstring)."""

    oldest_supported: str
    proven: tuple[str, ...]
    since: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        known = [self.oldest_supported, *self.proven, *self.since.values()]
        if any(parse_version(version) is None for version in known):
            raise ValueError(f"not a version in {known}")
        if not self.proven:
            raise ValueError("a rewritten lane needs at least one proven version")
        ordered = sorted(self.proven, key=_key)
        if list(self.proven) != ordered or _key(ordered[0]) < _key(self.oldest_supported):
            raise ValueError("proven versions go oldest first, none older than oldest_supported")

    @property
    def newest_proven(self) -> str:
        return self.proven[-1]

    def has(self, option: str, version: str | None) -> bool:
        """Whether `version` has `option`, one of those in `since`. False when the version is
        unknown (None): then only what every supported version has may be added."""
        first = self.since.get(option)
        if first is None:
            raise KeyError(f"{option} is not an option added by version")
        return version is not None and _key(version) >= _key(first)

    def fit(
        self, kind: str, version: str | None, *, asked: bool, require_proven: bool
    ) -> VersionFit:
        """Fit a rewrite of lane `kind` to `version`.

        `asked`: somebody said which version runs: the caller (`--lane-version`) or the binary
        (its `--version`, under `--exec`); with `asked` and no `version`, the binary could not
        tell, and such a binary is unproven. `require_proven`: refuse anything not proven.
        """
        proven_list = ", ".join(self.proven)
        if version is None:
            if not asked:
                if require_proven:
                    return VersionFit(
                        None,
                        None,
                        refusal=f"--require-proven: which {kind} version will run is unknown; "
                        "give it with --lane-version V, or use --exec (toolgate then asks the "
                        "binary)",
                    )
                return UNKNOWN
            what = f"{kind} did not tell its version, so it is unproven"
            if require_proven:
                return VersionFit(
                    None,
                    False,
                    refusal=f"{what} and --require-proven was given: install {kind} "
                    f"{self.newest_proven}, or give --lane-version",
                )
            return VersionFit(
                None,
                False,
                notice=f"{what} (proven: {proven_list}); it gets the rewrite every supported "
                "version understands",
            )
        if _key(version) < _key(self.oldest_supported):
            return VersionFit(
                version,
                False,
                refusal=f"{kind} {version} is older than the oldest version toolgate supports "
                f"({self.oldest_supported}): upgrade {kind} to {self.newest_proven} (proven)",
            )
        if any(_key(version) == _key(proven) for proven in self.proven):
            return VersionFit(version, True)
        if _key(version) > _key(self.newest_proven):
            state = f"{kind} {version} is newer than the versions proven ({proven_list})"
            runs = f"it gets the {self.newest_proven} table"
        else:
            state = f"{kind} {version} is not a proven version (proven: {proven_list})"
            runs = "it gets the table fitted to it"
        if require_proven:
            return VersionFit(
                version,
                False,
                refusal=f"{state}, and --require-proven was given: install {kind} "
                f"{self.newest_proven}, or drop --require-proven",
            )
        return VersionFit(version, False, notice=f"{state}; {runs} and runs unproven")


def _key(version: str) -> tuple[int, ...]:
    """The comparison key: `2.1` and `2.1.0` are the same version."""
    parsed = parse_version(version)
    if parsed is None:  # pragma: no cover - LaneVersions and callers check first
        raise ValueError(f"not a version: {version!r}")
    parts = list(parsed)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)
