"""toolgate lanes: every lane kind, its mechanism and proven versions, the refused kinds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import run_toolgate
from toolgate_cli.commands.lanes import lanes_document
from toolgate_cli.lanes import LANES, REFUSED_LANES, read_only_invoke
from toolgate_cli.lanes.base import LaneInvocation, RewriteOptions
from toolgate_cli.records import replace


def test_json_lists_every_lane_and_every_refused_kind():
    result = run_toolgate(["lanes", "--json"])
    assert result.returncode == 0
    document = json.loads(result.stdout)
    assert set(document) == {"lanes", "refused", "unknown", "lock_tree", "kind_rule"}
    assert "--lock-tree" in document["lock_tree"]
    assert [lane["kind"] for lane in document["lanes"]] == list(LANES)
    for entry in document["lanes"]:
        lane = LANES[entry["kind"]]
        assert set(entry) == {"kind", "mechanism", "versions_proven", "oldest_supported"}
        assert entry["mechanism"] == lane.mechanism
        assert entry["versions_proven"] == list(lane.versions_proven)
        assert entry["oldest_supported"] == lane.versions.oldest_supported
        assert entry["versions_proven"], f"{entry['kind']}: a supported lane names a proven version"
    assert {entry["kind"]: entry["reason"] for entry in document["refused"]} == REFUSED_LANES
    assert document == lanes_document()


def test_what_lanes_lists_is_what_dispatch_does():
    document = lanes_document()
    for entry in document["lanes"]:
        assert (
            read_only_invoke(LaneInvocation(entry["kind"], ("exec", "two words"))).lane
            == entry["kind"]
        )
    for entry in document["refused"]:
        result = read_only_invoke(LaneInvocation(entry["kind"], ("-p", "two words")))
        assert not result.ok
        assert entry["reason"] in result.reason
    unknown = read_only_invoke(LaneInvocation("some-new-agent", ("two words",)))
    assert not unknown.ok
    assert "unknown never claims" in document["unknown"]
    assert "unknown never claims" in unknown.reason


@pytest.mark.parametrize(
    "options",
    [RewriteOptions(), RewriteOptions(confine=True, lane_version="2.1.332")],
    ids=["read-only", "confined"],
)
def test_each_lanes_mechanism_names_every_flag_its_rewrite_adds(options: RewriteOptions) -> None:
    """The `lanes` text is written by hand; it must not fall behind the flags a rewrite adds."""
    runs = (
        ("claude", ("-p", "two words")),
        ("codex", ("exec", "two words")),
        ("copilot", ("-p", "two words")),
    )
    assert {kind for kind, _ in runs} == set(LANES)
    for kind, args in runs:
        result = read_only_invoke(LaneInvocation(kind, args), replace(options, lane_home="/h"))
        assert result.ok
        mechanism = LANES[kind].mechanism
        for change in result.changes:
            if change.action == "added":
                flag = change.flag if change.flag != "--config" else change.words[-1]
                if flag.startswith("env "):
                    flag = flag.removeprefix("env ")
                spelled = " ".join(change.words) if change.flag == "--disable" else flag
                assert spelled in mechanism, f"{kind}: lanes does not name {spelled}"


def test_human_output_names_every_kind_with_its_versions():
    result = run_toolgate(["lanes"], env={"COLUMNS": "80"})
    assert result.returncode == 0
    output = result.stdout
    supported, refused = output.split("Lanes toolgate refuses")
    for kind, lane in LANES.items():
        assert re.search(rf"^  {re.escape(kind)}\s", supported, re.MULTILINE)
        for version in lane.versions_proven:
            assert re.search(rf"proven with +{re.escape(kind)} {re.escape(version)}", supported)
    for kind in REFUSED_LANES:
        assert re.search(rf"^  {re.escape(kind)}\s", refused, re.MULTILINE)
    assert all(len(line) <= 80 for line in output.splitlines())
    assert "\x1b" not in output


def test_help_carries_an_example():
    result = run_toolgate(["lanes", "--help"])
    assert re.search(r"^\s+toolgate lanes --json", result.stdout, re.MULTILINE)


def test_the_readme_has_a_section_for_every_rewritten_lane_naming_its_proven_versions():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## What read-only means for each lane", 1)[1].split("\n## ", 1)[0]
    for kind, lane in LANES.items():
        heading = f"### {kind} (proven with {', '.join(lane.versions_proven)}"
        assert f"\n{heading})" in section or f"\n{heading};" in section, (
            f"README has no {heading!r}...)"
        )
