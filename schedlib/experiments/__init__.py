"""Reproductions of the papers' experiments, one module per paper.

Each module offers pure functions that return result rows (lists of flat
dicts, rendered by [`schedlib.results.tables.render`][schedlib.results.tables.render]) and
plugs into the command line as `schedlib reproduce NAME` by defining:

- `NAME`: the sub-command name;
- `SUMMARY`: one line of help;
- `add_arguments(parser)`: its options (the `--format` option is added for it);
- `main(args) -> int`: run it, print to standard output, return the exit code.
"""

REPRODUCTIONS: dict[str, str] = {
    "pgs": "schedlib.experiments.pgs",
    "preemptive": "schedlib.experiments.preemptive",
    "deferment": "schedlib.experiments.deferment",
    "frequency": "schedlib.experiments.frequency",
    "multisite": "schedlib.experiments.multisite",
}
"""Sub-command name of `schedlib reproduce` -> module implementing it."""

__all__ = ["REPRODUCTIONS"]
