"""Fuzz toolgate for a bounded time: `python tests/fuzz/run.py --seconds 60`.

With atheris installed (the `fuzz` extra) the run is coverage-guided (libFuzzer); without it,
hypothesis feeds random bytes to the same target for the same time, so the run never silently
does nothing. Either way the target is `tests.fuzz.targets.one_input`.

A failing input is written to tests/fuzz/regressions/ (atheris: its crash file, moved there;
hypothesis: the shrunk input), and the run exits non-zero. tests/test_fuzz_properties.py
replays every file in that folder on each pytest run: commit the file with the fix, and the
crash stays a regression test.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = REPO_ROOT / "tests" / "fuzz" / "regressions"
sys.path.insert(0, str(REPO_ROOT))

from tests.fuzz.targets import one_input  # noqa: E402


def save(data: bytes) -> Path:
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    path = REGRESSIONS / f"crash-{hashlib.sha1(data).hexdigest()[:16]}"
    path.write_bytes(data)
    return path


def run_atheris(seconds: int) -> int:
    import atheris

    artifacts = tempfile.mkdtemp(prefix="toolgate-fuzz-")
    corpus = tempfile.mkdtemp(prefix="toolgate-corpus-")
    argv = [
        sys.argv[0],
        corpus,
        f"-max_total_time={seconds}",
        f"-artifact_prefix={artifacts}/",
        "-max_len=512",
        "-print_final_stats=1",
    ]

    def test_one_input(data: bytes) -> None:
        try:
            one_input(data)
        except BaseException:
            saved = save(data)
            sys.stderr.write(f"fuzz: failing input saved as {saved.relative_to(REPO_ROOT)}\n")
            raise

    atheris.instrument_all()
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()  # exits the process: 0 when the time is up, non-zero on a crash
    return 0  # pragma: no cover


def run_hypothesis(seconds: int) -> int:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    deadline = time.monotonic() + seconds
    runs = 0
    while time.monotonic() < deadline:

        @settings(
            max_examples=500,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.binary(max_size=512))
        def fuzz(data: bytes) -> None:
            try:
                one_input(data)
            except BaseException:
                save(data)  # each shrinking step; the last one saved is the smallest
                raise

        fuzz()
        runs += 500
    print(f"fuzz (hypothesis): {runs:,} inputs in {seconds} s, no failure")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--engine", choices=["auto", "atheris", "hypothesis"], default="auto")
    options = parser.parse_args()
    engine = options.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401
        except ImportError:
            engine = "hypothesis"
            print("fuzz: atheris is not installed (pip install '.[fuzz]'); using hypothesis")
        else:
            engine = "atheris"
    os.environ.setdefault("PYTHONHASHSEED", "0")
    if engine == "atheris":
        return run_atheris(options.seconds)
    return run_hypothesis(options.seconds)


if __name__ == "__main__":
    sys.exit(main())
