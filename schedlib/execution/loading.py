"""Load your own code by name: `MODULE:NAME` or `path/to/file.py:NAME`.

How `schedlib run --policy`, `schedlib conform` and a sweep's `policy` find a
scheduler of yours: a module importable from the working directory or the
Python path (`mypackage.policies:smallest_first`), or a Python file
(`mypolicies.py:smallest_first`, `../lab/policies.py:smallest_first`). Every
failure is one [`InvalidValueError`][schedlib.errors.InvalidValueError] naming
the option the user typed, the value, and what is wrong: no such file or
module, no such name in it (with the names it has), or an error raised while
importing it (with its file and line).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "mine.py").write_text("def policy(snapshot):\\n    return None\\n")
>>> load_object(f"{folder}/mine.py:policy").__name__
'policy'
>>> load_object(f"{folder}/mine.py:polciy", option="--policy")
Traceback (most recent call last):
...
schedlib.errors.InvalidValueError: --policy = '.../mine.py:polciy': .../mine.py defines no 'polciy' (it defines: policy)
>>> is_reference("easy"), is_reference("mine.py:policy")
(False, True)
"""  # noqa: E501

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from schedlib.errors import InvalidValueError

__all__ = ["is_reference", "load_object", "split_reference"]


def is_reference(text: str) -> bool:
    """Whether `text` has the form `MODULE:NAME` or `FILE.py:NAME` (a non-empty name after
    the last colon, something before it)."""
    module, colon, name = text.rpartition(":")
    return bool(colon and module and name)


def split_reference(text: str, *, option: str = "reference") -> tuple[str, str]:
    """`(module or file, name)` of `MODULE:NAME` / `FILE.py:NAME`.

    Raises
    ------
    InvalidValueError
        Naming `option` when `text` is not of that form.

    Examples
    --------
    >>> split_reference("policies/mine.py:smallest_first")
    ('policies/mine.py', 'smallest_first')
    """
    module, _, name = text.rpartition(":")
    if not is_reference(text):
        raise InvalidValueError(
            option, text, "expected MODULE:NAME or path/to/file.py:NAME (e.g. mypolicies.py:mine)"
        )
    if not all(part.isidentifier() for part in name.split(".")):
        raise InvalidValueError(option, text, f"{name!r} is not a Python name")
    return module, name


def _is_file(module: str) -> bool:
    return module.endswith(".py") or os.sep in module or "/" in module


def _import_error(option: str, text: str, error: BaseException, origin: str) -> InvalidValueError:
    """The one line for an error raised while importing the user's module: its file and line."""
    where = origin
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.endswith(".py") and "importlib" not in Path(frame.filename).parts:
            where = f"{frame.filename}:{frame.lineno}"
    if isinstance(error, SyntaxError) and error.filename:
        where = f"{error.filename}:{error.lineno}"
        error_text = error.msg
    else:
        error_text = str(error)
    return InvalidValueError(
        option, text, f"importing it raised {type(error).__name__} at {where}: {error_text}"
    )


def _load_file(path_text: str, option: str, text: str) -> ModuleType:
    path = Path(path_text).expanduser()
    if not path.is_file():
        why = "is a folder, not a Python file" if path.is_dir() else "no such file"
        raise InvalidValueError(option, text, f"{path_text}: {why}")
    if path.suffix != ".py":
        raise InvalidValueError(option, text, f"{path_text}: not a Python file (.py)")
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    name = f"_schedlib_user_{resolved.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has one
        raise InvalidValueError(option, text, f"{path_text}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name
    folder = str(resolved.parent)
    added = folder not in sys.path
    if added:  # the file's own imports of its neighbours work, as with `python file.py`
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise _import_error(option, text, error, path_text) from None
    finally:
        if added:
            sys.path.remove(folder)
    return module


def _load_module(module_name: str, option: str, text: str) -> ModuleType:
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:  # like `python -m`: the working directory first
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and module_name.startswith(error.name):
            raise InvalidValueError(
                option,
                text,
                f"no module named {error.name!r} (looked in the working directory and the "
                "Python path; for a file, write path/to/file.py:NAME)",
            ) from None
        raise _import_error(option, text, error, module_name) from None
    except Exception as error:
        raise _import_error(option, text, error, module_name) from None
    finally:
        if added:
            sys.path.remove(cwd)


def load_object(text: str, *, option: str = "reference") -> Any:
    """The object `NAME` of `MODULE:NAME` or `FILE.py:NAME` (`NAME` may be dotted).

    Parameters
    ----------
    text
        The reference, as the user typed it.
    option
        What the user typed it as (`--policy`, `SCHEDULER`, a TOML key), for the messages.

    Raises
    ------
    InvalidValueError
        One line naming `option` and `text`: not a reference, no such file or
        module, an error while importing it (its type, file and line), or no such
        name in it (listing the public names it defines).
    """
    module_text, name = split_reference(text, option=option)
    if _is_file(module_text):
        module = _load_file(module_text, option, text)
    else:
        module = _load_module(module_text, option, text)
    found: Any = module
    for part in name.split("."):
        if not hasattr(found, part):
            owner = module_text if found is module else name.rpartition(".")[0]
            listed = _defined(found)
            shown = f" (it defines: {', '.join(listed)})" if listed else ""
            raise InvalidValueError(option, text, f"{owner} defines no {part!r}{shown}")
        found = getattr(found, part)
    return found


def _defined(owner: Any) -> list[str]:
    """The public callables `owner` defines itself (not those it imports), sorted."""
    home = getattr(owner, "__name__", None) if isinstance(owner, ModuleType) else None
    return sorted(
        name
        for name, value in getattr(owner, "__dict__", {}).items()
        if not name.startswith("_")
        and callable(value)
        and (home is None or getattr(value, "__module__", None) == home)
    )
