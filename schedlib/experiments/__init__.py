"""Reproductions of the papers' experiments, one package per paper, the same rooms in each.

Each reproduction is a package `schedlib/experiments/NAME/` listed in
[`REPRODUCTIONS`][schedlib.experiments.REPRODUCTIONS], the one registry through which
the command line (`schedlib reproduce NAME`), `schedlib reproduce all`
([`every_paper`][schedlib.experiments.every_paper]), sweeps
([`catalog`][schedlib.experiments.catalog]), the pages
(`docs/reproductions/generate.py`, [`pages`][schedlib.experiments.pages]) and the
tests find it, with [`reproduction`][schedlib.experiments.reproduction]. Its pure
functions return result rows (lists of flat dicts, rendered by
[`schedlib.results.tables.render`][schedlib.results.tables.render]).

**Where a new paper's reproduction goes.** Add a package `schedlib/experiments/NAME/`
with these rooms, each a module named for what it holds, and add it to
`REPRODUCTIONS`:

1. `setup.py`: the paper's set-up: its workload and machines (drawn from
   [`schedlib.replicates`][schedlib.replicates] streams), its constants and figures,
   the readings of what it leaves open; `NAME` (the sub-command), `PAPER` (as cited
   in tables) and `SUMMARY` (one line of help);
2. `runs.py`: one run (a module-level function of a picklable run, so that worker
   processes can run it), the design of the grid of runs, `reproduce(...)` returning
   the rows, their aggregation;
3. `findings.py`: `claims(rows)`, one [`Claim`][schedlib.experiments.claims.Claim]
   per claim of the paper, in the paper's order, each with its section and margin, and
   `QUICK_DIFFERS` (see [`documented`][schedlib.experiments.documented]); the room is
   not called `claims.py`, which the re-exported function `claims` would shadow;
4. `page.py`: `page_sections(full, quick)` (see
   [`pages`][schedlib.experiments.pages]) and `figures()`, file name ->
   `draw(rows, path)`, with the drawing functions;
5. `cli.py`: `add_arguments(parser)` (the command line adds `--format`), `data(args)`
   (the data line: what the run is measured on), `rows(args)` (the rows of parsed
   options, no printing) and `main(args)`, which hands them to
   [`run_command`][schedlib.experiments.command.run_command].

The package's `__init__` names the paper, its sections and its rooms, and re-exports
every public name of the rooms (an explicit `__all__`); a test that patches a name
patches it in the room that uses it. A room that would be under about 80 lines is
folded into its neighbour (the package's docstring says so), and no file grows beyond
about 700 lines. What reproductions share lives once in this package and is never
copied into one: the claim protocol ([`claims`][schedlib.experiments.claims]), the
generated pages ([`pages`][schedlib.experiments.pages]), the documented full-size
results and the quick-versus-full comparison
([`documented`][schedlib.experiments.documented]), the shared options and printing
([`options`][schedlib.experiments.options]), the shared `main` and list options
([`command`][schedlib.experiments.command]) and the runs' machinery
([`running`][schedlib.experiments.running]).
"""

from __future__ import annotations

import importlib
from types import ModuleType

REPRODUCTIONS: dict[str, str] = {
    "pgs": "schedlib.experiments.pgs",
    "preemptive": "schedlib.experiments.preemptive",
    "deferment": "schedlib.experiments.deferment",
    "frequency": "schedlib.experiments.frequency",
    "multisite": "schedlib.experiments.multisite",
}
"""Sub-command name of `schedlib reproduce` -> package implementing it."""


def reproduction(name: str) -> ModuleType:
    """The package of reproduction `name` of [`REPRODUCTIONS`][schedlib.experiments.REPRODUCTIONS],
    imported on first use (a reproduction is slow to import: the command line imports one
    only when it runs it).

    Raises
    ------
    KeyError
        For a name that is not registered.

    Examples
    --------
    >>> reproduction("pgs").NAME
    'pgs'
    """
    return importlib.import_module(REPRODUCTIONS[name])


__all__ = ["REPRODUCTIONS", "reproduction"]
