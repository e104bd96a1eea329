"""Version awareness, pure: which versions a rewrite supports and proves, and fitting one.

The CLI side (--lane-version, --require-proven, the binary's own --version under --exec and
its cache) is tests/test_dispatch_versions.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgate_cli.decision import DispatchRequest, decide_dispatch
from toolgate_cli.lanes import LANE_MODULES, LANES
from toolgate_cli.lanes.base import LaneInvocation
from toolgate_cli.lanes.versions import LaneVersions, normal_version, parse_version

VERSIONS = LaneVersions(
    oldest_supported="2.1.197", proven=("2.1.300", "2.1.332"), since={"--new": "2.1.250"}
)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("2.1.332", (2, 1, 332)),
        ("v2.1.332", (2, 1, 332)),
        (" 0.171.0\n", (0, 171, 0)),
        ("1.0", (1, 0)),
        ("2", None),
        ("latest", None),
        ("2.1.332-beta.1", None),
        ("2.1.x", None),
        ("", None),
        ("2..1", None),
    ],
)
def test_a_version_is_dotted_numbers(text: str, parsed: tuple[int, ...] | None) -> None:
    assert parse_version(text) == parsed
    assert normal_version(text) == (".".join(map(str, parsed)) if parsed else None)


@given(st.lists(st.integers(0, 400), min_size=2, max_size=4))
def test_normal_versions_read_back_as_themselves(parts: list[int]) -> None:
    text = ".".join(map(str, parts))
    assert normal_version(text) == text
    assert normal_version("v" + text) == text


def test_a_proven_version_fits_with_no_notice() -> None:
    fit = VERSIONS.fit("claude", "2.1.332", asked=True, require_proven=True)
    assert (fit.version, fit.proven, fit.refusal, fit.notice) == ("2.1.332", True, None, None)
    assert VERSIONS.fit("claude", "2.1.332.0", asked=True, require_proven=True).proven is True


def test_older_than_the_oldest_supported_is_refused_with_what_to_upgrade_to() -> None:
    fit = VERSIONS.fit("claude", "2.1.196", asked=True, require_proven=False)
    assert fit.proven is False and fit.notice is None
    assert fit.refusal is not None
    assert "2.1.196 is older than the oldest version toolgate supports (2.1.197)" in fit.refusal
    assert "upgrade claude to 2.1.332" in fit.refusal


def test_newer_than_proven_gets_the_newest_table_and_one_notice_naming_both() -> None:
    fit = VERSIONS.fit("claude", "2.1.400", asked=True, require_proven=False)
    assert (fit.version, fit.proven, fit.refusal) == ("2.1.400", False, None)
    assert fit.notice is not None and "\n" not in fit.notice
    assert "2.1.400" in fit.notice and "2.1.300, 2.1.332" in fit.notice
    assert "2.1.332 table" in fit.notice


def test_a_supported_version_between_proven_ones_is_unproven_too() -> None:
    fit = VERSIONS.fit("claude", "2.1.310", asked=True, require_proven=False)
    assert (fit.version, fit.proven, fit.refusal) == ("2.1.310", False, None)
    assert fit.notice is not None and "not a proven version" in fit.notice


@pytest.mark.parametrize("version", ["2.1.310", "2.1.400", "2.1.197"])
def test_require_proven_refuses_every_unproven_version(version: str) -> None:
    fit = VERSIONS.fit("claude", version, asked=True, require_proven=True)
    assert fit.refusal is not None and "--require-proven" in fit.refusal
    assert "install claude 2.1.332" in fit.refusal
    assert fit.notice is None


def test_a_binary_that_cannot_tell_its_version_is_unproven() -> None:
    fit = VERSIONS.fit("claude", None, asked=True, require_proven=False)
    assert (fit.version, fit.proven, fit.refusal) == (None, False, None)
    assert fit.notice is not None and "did not tell its version" in fit.notice
    refused = VERSIONS.fit("claude", None, asked=True, require_proven=True)
    assert refused.refusal is not None and refused.proven is False


def test_nobody_said_which_version_runs_is_unknown_not_unproven() -> None:
    fit = VERSIONS.fit("claude", None, asked=False, require_proven=False)
    assert (fit.version, fit.proven, fit.refusal, fit.notice) == (None, None, None, None)
    refused = VERSIONS.fit("claude", None, asked=False, require_proven=True)
    assert refused.refusal is not None and "--lane-version" in refused.refusal


def test_an_option_is_added_only_from_the_version_that_has_it() -> None:
    assert not VERSIONS.has("--new", None)  # unknown: the baseline, for every version
    assert not VERSIONS.has("--new", "2.1.249")
    assert VERSIONS.has("--new", "2.1.250")
    assert VERSIONS.has("--new", "2.1.400")
    with pytest.raises(KeyError):
        VERSIONS.has("--not-gated", "2.1.400")


@pytest.mark.parametrize(
    "bad",
    [
        {"oldest_supported": "x", "proven": ("1.0",)},
        {"oldest_supported": "1.0", "proven": ()},
        {"oldest_supported": "1.0", "proven": ("1.2", "1.1")},
        {"oldest_supported": "1.5", "proven": ("1.2",)},
        {"oldest_supported": "1.0", "proven": ("1.2",), "since": {"--x": "soon"}},
    ],
)
def test_a_lane_cannot_declare_versions_that_make_no_sense(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        LaneVersions(**bad)  # type: ignore[arg-type]


# --- every registered lane keeps the interface ----------------------------------------------


@pytest.mark.parametrize("kind", sorted(LANE_MODULES))
def test_every_lane_module_holds_the_interface(kind: str) -> None:
    module = LANES[kind].module
    assert kind == module.KIND
    assert module.MECHANISM and "\n" not in module.MECHANISM
    assert module.RUN_HINT
    assert module.VERSIONS.proven
    surfaces = module.help_surfaces()
    assert surfaces and surfaces[0].args[-1] == "--help"
    for surface in surfaces:
        assert surface.gated <= set(module.VERSIONS.since)
        assert surface.relied <= surface.known | {"--print"}
    # Version-gated rows: those every read-only run gets, and those only --confine adds.
    gated_rows = getattr(module, "VERSION_GATED_FLAGS", ())
    assert {row[0] for row in gated_rows} == set(module.VERSIONS.since)


@pytest.mark.parametrize(
    ("kind", "output", "version"),
    [
        ("claude", "2.1.332 (Claude Code)\n", "2.1.332"),
        ("claude", "2.1.197 (Claude Code)", "2.1.197"),
        ("claude", "", None),
        ("claude", "Claude Code\n", None),
        ("codex", "codex-cli 0.171.0\n", "0.171.0"),
        ("codex", "0.171.0", None),
        ("codex", "codex-cli", None),
    ],
)
def test_each_lane_reads_its_own_version_output(
    kind: str, output: str, version: str | None
) -> None:
    assert LANES[kind].module.version_of(output) == version


# --- the decision ----------------------------------------------------------------------------


def _decide(tmp_path: object, command: tuple[str, ...], **request: object) -> object:
    invocation = LaneInvocation(command[0], command[1:])
    return decide_dispatch(
        DispatchRequest(
            invocation=invocation,
            read_only=True,
            mode="agent",
            cwd=str(tmp_path),
            caller_root=str(tmp_path),
            **request,  # type: ignore[arg-type]
        )
    )


def test_the_decision_carries_the_fitted_version_into_the_json(tmp_path: object) -> None:
    newest = LANES["claude"].versions.newest_proven
    decision = _decide(tmp_path, ("claude", "-p", "x"), lane_version=newest, version_asked=True)
    document = decision.as_json()  # type: ignore[attr-defined]
    assert (document["lane_version"], document["version_proven"]) == (newest, True)
    assert document["ok"] is True
    unknown = _decide(tmp_path, ("claude", "-p", "x")).as_json()  # type: ignore[attr-defined]
    assert (unknown["lane_version"], unknown["version_proven"]) == (None, None)


def test_a_version_refusal_is_a_refused_change_and_nothing_runs(tmp_path: object) -> None:
    decision = _decide(tmp_path, ("codex", "exec", "x y"), lane_version="0.1.0", version_asked=True)
    document = decision.as_json()  # type: ignore[attr-defined]
    assert document["ok"] is False and document["invoke"] is None
    assert document["changes"] == [
        {
            "action": "refused",
            "flag": "<version>",
            "words": ["0.1.0"],
            "reason": document["refusal"],
        }
    ]
    assert "older than the oldest version" in document["refusal"]


def test_a_lane_without_a_flag_rewrite_claims_nothing_of_its_version(tmp_path: object) -> None:
    decision = _decide(
        tmp_path,
        ("opencode", "run", "x"),
        lane_version="1.18.33",
        version_asked=True,
        require_proven=True,
    )
    document = decision.as_json()  # type: ignore[attr-defined]
    assert document["ok"] is False  # refused for having no read-only flags, not for its version
    assert (document["lane_version"], document["version_proven"]) == ("1.18.33", None)
    assert "no read-only" in document["refusal"] or "cannot be made" in document["refusal"]
