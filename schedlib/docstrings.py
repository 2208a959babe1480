"""Docstrings readable in `help()` as well as in the documentation.

schedlib's docstrings are written once, in Markdown, for the documentation
(mkdocstrings): a cross-reference is `` [`sweep`][schedlib.execution.sweep.sweep] ``,
which the documentation turns into a link. In `help()` or an editor the same
text would show the link's target after every name. So each schedlib module,
as it is imported, has the cross-references of its docstrings (the module's,
its classes' and functions', and their members') rewritten to their text alone:
`` `sweep` ``. The documentation reads the source, not the imported objects, so
it keeps its links.

Why a rewrite on import rather than a writing convention: the docstrings keep
one syntax that the documentation checks (a link whose target does not exist
fails the strict build), nothing has to be written twice, and every module gets
the same treatment without a line of its own. The cost is a regular expression
over each docstring that holds a cross-reference, once per import (see
[`rewrite`][schedlib.docstrings.rewrite]); only targets in `schedlib.` are
rewritten, so code such as `rows[0][1]` in an example is left alone.

Examples
--------
>>> readable("Runs [`run_all`][schedlib.execution.parallel.run_all] on rows[0][1].")
'Runs `run_all` on rows[0][1].'
>>> import importlib
>>> sweep = importlib.import_module("schedlib.execution.sweep")  # rewritten on import
>>> readable(sweep.__doc__) == sweep.__doc__, "`run_all` — local processes" in sweep.__doc__
(True, True)
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import re
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["install", "readable", "rewrite"]

_LINK = re.compile(r"\[([^\[\]\n]+)\]\[schedlib(?:\.[A-Za-z_][A-Za-z0-9_]*)*\]")


def readable(text: str) -> str:
    """`text` with each Markdown cross-reference to a schedlib object replaced by its text.

    Examples
    --------
    >>> readable("See [the engine][schedlib.engine] and [`Job`][schedlib.model.Job].")
    'See the engine and `Job`.'
    """
    return _LINK.sub(r"\1", text) if "][schedlib" in text else text


def _set_doc(owner: Any) -> None:
    doc = getattr(owner, "__doc__", None)
    if isinstance(doc, str) and "][schedlib" in doc:
        with contextlib.suppress(AttributeError, TypeError):  # a read-only __doc__
            owner.__doc__ = readable(doc)


def rewrite(module: ModuleType) -> None:
    """Make the docstrings of `module` readable: its own, and those of the classes and
    functions it defines, with their members (methods, properties, nested classes).

    Complexity: one pass over the module's names and its classes' members; a regular
    expression over each docstring that holds a cross-reference.
    """
    _set_doc(module)
    name = module.__name__
    for value in list(vars(module).values()):
        if getattr(value, "__module__", None) != name:
            continue
        if isinstance(value, type):
            _rewrite_class(value, 2)
        elif callable(value):
            _set_doc(value)


def _rewrite_class(cls: type, depth: int) -> None:
    _set_doc(cls)
    for member in list(vars(cls).values()):
        if isinstance(member, (staticmethod, classmethod)):
            _set_doc(member.__func__)
        elif isinstance(member, property):
            _set_doc(member)
        elif isinstance(member, type) and depth > 0:
            _rewrite_class(member, depth - 1)
        elif callable(member):
            _set_doc(member)


class _Loader(importlib.abc.Loader):
    """A module's own loader, then [`rewrite`][schedlib.docstrings.rewrite]."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._loader.create_module(spec)
        return created

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        rewrite(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader, ...
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds `schedlib.*` modules as the path finder does, with `_Loader` around their loader."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("schedlib.") or path is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Rewrite the docstrings of every schedlib module imported from now on (once per
    process), and of those already imported."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    for name, module in list(sys.modules.items()):
        if (name == "schedlib" or name.startswith("schedlib.")) and module is not None:
            rewrite(module)
