"""The public API the README teaches: every lazy export resolves, and the README's Python example
runs as written."""

from __future__ import annotations

import re
import subprocess
import sys

import toolgate_cli
from tests.conftest import REPO_ROOT, toolgate_env


def test_every_lazy_export_resolves_to_its_module_attribute() -> None:
    for name in toolgate_cli.__all__:
        assert getattr(toolgate_cli, name) is not None, name


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        toolgate_cli.not_a_thing  # noqa: B018
    except AttributeError as error:
        assert "not_a_thing" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_readme_python_example_runs(tmp_path) -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "the README lost its Python example"
    (tmp_path / "src").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]],
        cwd=tmp_path,
        env=toolgate_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "claude --permission-mode dontAsk" in done.stdout
    assert "replaced --permission-mode" in done.stdout
    assert done.stdout.rstrip().endswith("True")
