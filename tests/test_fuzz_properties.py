"""The fuzz target's properties under pytest, and every input the fuzzer ever failed on.

`tests/fuzz/targets.py` defines the properties (no exception escapes; a rewrite rewrites to
itself; what the checker admits is admitted again, also re-quoted; the hook always answers with
a well-formed decision that agrees with the checker). CI fuzzes them for a bounded time
(`python tests/fuzz/run.py`, after pytest); here hypothesis runs them briefly on every test
run, and each file in tests/fuzz/regressions/ (an input that once failed) is replayed:

- pass-flag-newline-in-refusal: a --pass-flag name holding a newline made a two-line refusal
  (fixed by escaping control characters in refusals).
- claude-folded-deny-deep-link: `--disallowed-tools=cc+unix://x` was folded into toolgate's
  deny list as the argument `cc+unix://x` of its own, a deep link claude acts on wherever it
  stands; the rewrite did not rewrite to itself. Now refused.
- codex-open-image-swallows-exec: `codex -i IMG --config sandbox_mode=... exec`: stripping the
  --config left `-i IMG exec`, where the variadic -i reads `exec` as a second image and codex
  has no subcommand. Fixed on the core-tests branch (2ff368b, "Removing a flag must not hand
  the next positional to an open option before it"), which found it independently.
- mountinfo-relative-path-view: a mount table line with runs of spaces shifted its fields, so
  a mount "point" that was not an absolute path made `other_views` name `../../w`. Lines whose
  paths are not absolute are now skipped (the kernel never writes them), and paths are
  normalised.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import one_input
from toolgate_cli.lanes import LaneInvocation, RewriteOptions, read_only_invoke
from toolgate_cli.lanes.base import PassFlag

REGRESSIONS = sorted((Path(__file__).parent / "fuzz" / "regressions").iterdir())


@pytest.mark.parametrize("path", REGRESSIONS, ids=[path.name for path in REGRESSIONS])
def test_an_input_the_fuzzer_once_failed_on_passes(path: Path) -> None:
    one_input(path.read_bytes())


def test_every_recorded_input_is_explained_in_this_module() -> None:
    assert REGRESSIONS, "the fuzzer's findings are kept in tests/fuzz/regressions"
    for path in REGRESSIONS:
        assert f"- {path.name}:" in (__doc__ or ""), f"say what {path.name} found"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=512))
def test_the_fuzz_properties_hold_on_random_bytes(data: bytes) -> None:
    one_input(data)


@pytest.mark.parametrize("deny", ["cc+unix://x", "cc://session", "--bg", "--routine=x"])
@pytest.mark.parametrize("spelling", ["--disallowed-tools={}", "--disallowedTools={}"])
def test_a_folded_deny_value_never_becomes_a_word_claude_acts_on(spelling: str, deny: str) -> None:
    result = read_only_invoke(LaneInvocation("claude", ("-p", spelling.format(deny), "x y")))
    if result.ok:
        assert deny not in result.invoke.args
    else:
        assert deny in result.reason


def test_a_folded_deep_link_is_refused_saying_why() -> None:
    result = read_only_invoke(
        LaneInvocation("claude", ("-p", "--disallowed-tools=cc+unix://x", "x y"))
    )
    assert not result.ok
    assert "would stand as an argument of its own" in result.reason


def test_a_refusal_naming_a_pass_flag_with_a_newline_is_one_line() -> None:
    options = RewriteOptions(pass_flags=(PassFlag("x\nfake: ok"),))  # not an option name
    result = read_only_invoke(LaneInvocation("claude", ("-p", "x")), options)
    assert not result.ok
    assert "\n" not in result.reason
