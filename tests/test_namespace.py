"""The package root offers its stable names and nothing it merely uses."""

from __future__ import annotations

import types

import schedlib


def test_the_root_holds_only_its_public_names_and_submodules() -> None:
    stray = [
        name
        for name in dir(schedlib)
        if not name.startswith("_")
        and name not in schedlib.__all__
        and not isinstance(getattr(schedlib, name), types.ModuleType)
    ]
    assert not stray, f"names that leak into the schedlib namespace: {stray}"


def test_typing_names_do_not_leak() -> None:
    assert not hasattr(schedlib, "Any")
