"""A one-word `codex exec` prompt, measured with the real codex against the stub model.

toolgate admits a one-word prompt that names no exec subcommand of the version it rewrites and
refuses the words that would run one (`toolgate_cli.lanes.codex.exec_subcommand_named_by`).
That rests on how codex 0.171.0's clap parser reads the word, so the first test pins it on the
real binary, without toolgate: a prefix of a subcommand is a prompt (no prefix inference), a
subcommand name runs the subcommand (no model request), and after `--` every word is a prompt.
The second runs the same words through `toolgate dispatch --read-only --exec`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.e2e.codex_harness import STUB, Leg, run_leg


def user_prompt(leg: Leg) -> str | None:
    """The text of the last user message in the first model request, or None (no request)."""
    if not leg.requests:
        return None
    texts = [
        part.get("text")
        for item in leg.requests[0].get("input") or []
        if item.get("role") == "user"
        for part in item.get("content") or []
        if part.get("type") == "input_text"
    ]
    return texts[-1] if texts else None


def run_all(
    codex_bin: Path, parent: Path, tails: Sequence[Sequence[str]], *, gated: bool
) -> list[Leg]:
    templates = [["exec", "--skip-git-repo-check", STUB, *tail] for tail in tails]
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(run_leg, codex_bin, template, parent / str(n), gated=gated, script=())
            for n, template in enumerate(templates)
        ]
        return [future.result() for future in futures]


PROMPT_WORDS = (("rev",), ("hel",), ("--", "resume"), ("--", "help"))
SUBCOMMAND_WORDS = (("resume",), ("help",))


def test_codex_reads_prefixes_and_words_after_dashes_as_the_prompt(
    codex_bin: Path, tmp_path: Path
) -> None:
    """The facts behind EXEC_INFERS_PREFIXES = False and EXEC_SUBCOMMANDS (codex 0.171.0)."""
    for n in range(len(PROMPT_WORDS) + len(SUBCOMMAND_WORDS)):
        (tmp_path / str(n)).mkdir()
    legs = run_all(codex_bin, tmp_path, [*PROMPT_WORDS, *SUBCOMMAND_WORDS], gated=False)
    for tail, leg in zip(PROMPT_WORDS, legs, strict=False):
        assert leg.returncode == 0, leg.describe()
        assert user_prompt(leg) == tail[-1], leg.describe()
    for leg in legs[len(PROMPT_WORDS) :]:
        # the subcommand ran instead (resume waits for a prompt on stdin, help prints help)
        assert leg.any_request == 0, leg.describe()


def test_a_one_word_prompt_reaches_the_model_through_toolgate_and_a_subcommand_is_refused(
    codex_bin: Path, tmp_path: Path
) -> None:
    tails = (("summarize",), ("--", "go"), ("resume",))
    for n in range(len(tails)):
        (tmp_path / str(n)).mkdir()
    summarize, go, resume = run_all(codex_bin, tmp_path, tails, gated=True)
    for leg, prompt in ((summarize, "summarize"), (go, "go")):
        assert leg.returncode == 0, leg.describe()
        assert user_prompt(leg) == prompt, leg.describe()
        assert "sandbox: read-only" in leg.stderr, leg.describe()
    assert resume.returncode == 3, resume.describe()
    assert resume.any_request == 0, resume.describe()
    assert "codex exec resume (" in resume.stderr, resume.describe()
