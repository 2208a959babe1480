"""The package's layers: every import of `schedlib` points down, and no family imports another.

The layers, lowest first (the Background page draws them):

0. ground: `model`, `place`, `errors`, `validation`, `collector`, `lazy`, `docstrings` (and
   the package's `__init__`);
1. shared machinery: `engine`, `workloads`, `results`, `execution`;
2. the single-site backfilling core, `backfill` (Sabin et al. §2), which the
   multi-site family runs at each of its sites;
3. the paper families: `preemption`, `availability`, `frequency`, `deferment`,
   `multisite`;
4. `experiments` and `testing`;
5. the command line, `cli` and `__main__`.

A module may import its own package and any lower layer; inside layer 3 no
family imports another (what two families share moves down a layer), and
`experiments` and `testing` do not import each other. Every import counts,
module-level or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import schedlib

PACKAGE = Path(schedlib.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "__init__": 0,
    "model": 0,
    "place": 0,
    "errors": 0,
    "validation": 0,
    "collector": 0,
    "lazy": 0,
    "replicates": 0,
    "docstrings": 0,
    "engine": 1,
    "workloads": 1,
    "results": 1,
    "execution": 1,
    "backfill": 2,
    "preemption": 3,
    "availability": 3,
    "frequency": 3,
    "deferment": 3,
    "multisite": 3,
    "experiments": 4,
    "testing": 4,
    "cli": 5,
    "__main__": 5,
}
FAMILY_LAYER = 3
SIBLINGS_APART = {"experiments", "testing"}
ROOT_CONVENIENCES = {("schedlib", "schedlib.execution.sweep")}
"""The package root re-exports these, loaded on first use (its `__getattr__`): `schedlib.sweep`."""


def _unit(module: str) -> str:
    """The top-level unit of a dotted `schedlib.x.y` name: `x` (or `__init__`)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name / "__init__.py").is_file()


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every `schedlib` module `path` imports, with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("schedlib")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "schedlib":  # a submodule, or a name of the package's __init__
                found += [
                    (node.lineno, f"schedlib.{a.name}" if _is_module(a.name) else "schedlib")
                    for a in node.names
                ]
            elif node.module.startswith("schedlib."):
                found.append((node.lineno, node.module))
    return found


def _edges() -> list[tuple[str, int, str]]:
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _module_name(path)
        edges += [(source, line, target) for line, target in _imports(path)]
    return edges


def _violation(source: str, target: str) -> str | None:
    if (source, target) in ROOT_CONVENIENCES:
        return None
    a, b = _unit(source), _unit(target)
    if a == b:
        return None
    if a not in LAYERS or b not in LAYERS:
        return f"{a if a not in LAYERS else b!r} is in no layer (add it to LAYERS and the docs)"
    la, lb = LAYERS[a], LAYERS[b]
    if lb > la:
        return f"layer {la} ({a}) imports layer {lb} ({b}): imports must point down"
    if la == lb == FAMILY_LAYER:
        return f"family {a} imports family {b}: move what they share down a layer"
    if la == lb and {a, b} <= SIBLINGS_APART:
        return f"{a} imports {b}: they stand side by side"
    return None


def test_every_top_level_unit_has_a_layer() -> None:
    units = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    assert units <= set(LAYERS), f"not in any layer: {sorted(units - set(LAYERS))}"


def test_imports_point_down_and_families_stay_apart() -> None:
    problems = [
        f"{source} (line {line}) -> {target}: {why}"
        for source, line, target in _edges()
        if (why := _violation(source, target)) is not None
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("schedlib.preemption.grid", "schedlib.deferment.farm", "family preemption imports"),
        ("schedlib.engine.loop", "schedlib.backfill.profile", "imports must point down"),
        ("schedlib.model", "schedlib.results.metrics", "imports must point down"),
        ("schedlib.testing.invariants", "schedlib.experiments.pgs", "side by side"),
        ("schedlib.multisite.sites", "schedlib.backfill.profile", None),
        ("schedlib.availability.grid", "schedlib.results.metrics", None),
        ("schedlib.cli", "schedlib.experiments", None),
    ],
)
def test_the_rule_itself(source: str, target: str, expected: str | None) -> None:
    why = _violation(source, target)
    if expected is None:
        assert why is None
    else:
        assert why is not None and expected in why
