from tests.conftest import run_toolgate
from toolgate_cli import __version__


def test_version_prints_the_package_version() -> None:
    result = run_toolgate(["--version"])
    assert result.returncode == 0
    assert __version__ in result.stdout
