"""Names a package exports from its submodules, each loaded on first use.

A package whose `__init__` imports every submodule makes every user pay for
all of them: `schedlib run` would import the plotting code and the worker
pools to simulate one policy. [`lazy_names`][schedlib.lazy.lazy_names] gives
a package the module-level `__getattr__` and `__dir__` (PEP 562) that load a
name from its submodule the first time it is asked for, then keep it.

Examples
--------
>>> import schedlib.results
>>> schedlib.results.render.__module__
'schedlib.results.tables'
>>> "render" in dir(schedlib.results)
True
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of a package that loads `homes`' names on first use.

    Parameters
    ----------
    package
        The package's `__name__`.
    homes
        Each exported name and the submodule (relative to `package`) that defines it.

    Returns
    -------
    tuple
        `(__getattr__, __dir__)`, to assign at the package's top level. A
        name loaded once is stored in the package, so later lookups cost
        nothing; an unknown name raises `AttributeError` as usual.

    Notes
    -----
    Complexity: one import per submodule, at the first use of one of its names.

    Examples
    --------
    >>> getattr_, dir_ = lazy_names("schedlib.results", {"render": "tables"})
    >>> getattr_("render").__name__
    'render'
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
