"""Every public docstring renders: no control characters from a missing backslash.

A docstring with `$\\alpha$` written as `"$\alpha$"` (not raw) holds a bell
character instead of the formula; the docs would show garbage. This walks every
module of the package and its classes and functions.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import schedlib

CONTROL = "\x07\x08\x0b\x0c"


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
