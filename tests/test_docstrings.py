"""Every public docstring renders, and no user-facing text uses our internal names.

No control characters from a missing backslash:

A docstring with `$\\alpha$` written as `"$\alpha$"` (not raw) holds a bell
character instead of the formula; the docs would show garbage. This walks every
module of the package and its classes and functions.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import schedlib

CONTROL = "\x07\x08\x0b\x0c"
ROOT = Path(__file__).resolve().parent.parent


def _docstrings() -> list[tuple[str, str]]:
    found = []
    for info in pkgutil.walk_packages(schedlib.__path__, "schedlib."):
        module = importlib.import_module(info.name)
        found.append((info.name, module.__doc__ or ""))
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != info.name:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                found.append((f"{info.name}.{name}", obj.__doc__ or ""))
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    doc = getattr(value, "__doc__", None)
                    if callable(value) and isinstance(doc, str):
                        found.append((f"{info.name}.{name}.{member}", doc))
    return found


def test_no_docstring_holds_a_control_character() -> None:
    bad = [name for name, doc in _docstrings() if any(c in doc for c in CONTROL)]
    assert not bad, f"docstrings with a control character (missing backslash): {bad}"


JARGON = re.compile(
    r"\b[Ss]eeds? (\d+, )*00[0-4]\b|\b[Pp]apers? (\d+, )*00[0-4]\b|\bSPEC\b"
    r"|\b[Tt]he issue\b|\b[Ii]ssues? #?\d"
)
"""Internal names of the papers and of our specification: users never see them."""


def test_no_user_facing_text_uses_internal_paper_names() -> None:
    root = Path(__file__).resolve().parent.parent
    texts = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    texts += sorted((root / "schedlib").rglob("*.py"))
    found = [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for path in texts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if JARGON.search(line)
    ]
    assert not found, "\n".join(found)


def test_no_help_text_uses_internal_paper_names(capsys: pytest.CaptureFixture[str]) -> None:
    from schedlib.cli import main
    from schedlib.experiments import REPRODUCTIONS

    commands = [[], ["run"], ["compare"], ["sweep"], ["check"], ["plot"]]
    commands += [["reproduce", n] for n in REPRODUCTIONS]
    for command in commands:
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        out = capsys.readouterr().out
        assert not JARGON.search(out), (command, JARGON.findall(out))


@pytest.mark.parametrize(
    "page",
    sorted(
        str(p.relative_to(ROOT))
        for folder in ("algorithms", "reproductions")
        for p in (ROOT / "docs" / folder).glob("*.md")
    ),
)
def test_every_algorithm_and_reproduction_page_ends_with_its_references(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "\n## References\n" in text, f"{page} has no References section"
    references = text.split("\n## References\n", 1)[1]
    assert re.search(r"\(\d{4}\)|no author|year", references), f"{page}: a reference has no year"


def test_help_shows_cross_references_as_plain_text() -> None:
    """The docstrings are Markdown for the documentation; `help()` shows them without the
    link syntax (the documentation reads the source and keeps its links)."""
    import pydoc

    sweep = importlib.import_module("schedlib.execution.sweep")
    text = pydoc.render_doc(sweep.sweep, renderer=pydoc.plaintext)
    assert "(see `configurations`)" in text and "][schedlib" not in text
    source = (ROOT / "schedlib" / "execution" / "sweep.py").read_text()
    assert "[`configurations`][schedlib.execution.sweep.configurations]" in source


def test_no_imported_docstring_keeps_the_link_syntax() -> None:
    linked = [name for name, doc in _docstrings() if "][schedlib." in doc]
    assert not linked, f"docstrings that help() would show with link targets: {linked[:10]}"


def test_code_that_looks_like_a_link_is_left_alone() -> None:
    from schedlib.docstrings import readable

    text = ">>> rows[0][1], table[site][schedlib_key]\n[`x`][schedlib.model.Job]"
    assert readable(text) == ">>> rows[0][1], table[site][schedlib_key]\n`x`"
