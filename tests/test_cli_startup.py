"""`schedlib` starts fast: only `reproduce` imports the reproductions, and every help and
error reads as when the whole parser is built."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

import schedlib.cli as cli

IMPORTED = """
import contextlib, io, sys
from schedlib.cli import main
from schedlib.experiments import REPRODUCTIONS
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(sum(module in sys.modules for module in REPRODUCTIONS.values()), len(REPRODUCTIONS))
"""


def imported_reproductions(argv: list[str]) -> tuple[int, int]:
    code = IMPORTED.format(argv=argv)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, total = map(int, out.stdout.split())
    return imported, total


def test_only_reproduce_imports_the_reproductions() -> None:
    assert imported_reproductions(["run", "--help"])[0] == 0
    assert imported_reproductions(["check", "--help"])[0] == 0
    imported, total = imported_reproductions(["reproduce", "--help"])
    assert imported == total > 0


def capture(argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = cli.main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["nosuch"],
        ["run", "--help"],
        ["run", "--policy", "nosuch"],
        ["compare", "--help"],
        ["check", "--help"],
        ["plot", "--help"],
        ["sweep", "--help"],
        ["reproduce", "--help"],
        ["reproduce"],
        ["reproduce", "pgs", "--help"],
        ["reproduce", "nosuch"],
    ],
)
def test_help_and_errors_read_as_with_the_whole_parser(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy = capture(argv)
    monkeypatch.setattr(cli, "_command_of", lambda words: None)  # builds everything
    assert capture(argv) == lazy
