"""Generate the reproduction pages: every number, table and figure on them comes from here.

```text
python docs/reproductions/generate.py [NAME ...] [--full] [--workers W | --dask-local N]
                                      [--resume FILE] [--jobs N]
```

For each reproduction `NAME` (default: all of them, found through the registry
`schedlib.experiments.REPRODUCTIONS`):

- `--full` runs it at its full (default) sizes, stores what it found in
  `schedlib/experiments/documented/NAME.json` (printing first the verdicts that moved
  from the result it replaces; with the command, the commit and the
  date; a reproduction's `page` room may define `documented_rows(rows)`, the rows its
  page needs, to keep the file small, and `documented_summary(rows)`, more keys to
  store beside them) and draws the page's figures;
- then it runs the `--quick` variant and fills every generated section of
  `docs/reproductions/NAME.md` (`<!-- gen:KEY -->...<!-- /gen -->`) from the
  documented full-size results and the quick run, and those of any other page the
  `page` room's `extra_pages(full, quick)` names (a how-to quoting the full run).

Every run also regenerates the reference page `docs/reproductions/index.md` (the
rule beside every claims table, the margins of the papers' words) and the table of
the reproductions' running times on `docs/performance.md` (the times each `--help`
states).

`--resume FILE` (one reproduction, with `--full`) reads the full run back from a resume
file filled by `schedlib reproduce NAME --resume FILE` in as many sittings as it took (the
runs missing from it are run, and appended); the stored result names the command.
`--dask-local N` runs the full run on a dask LocalCluster of N workers. `--jobs N` (one
reproduction that has `--jobs`, with `--full`) replaces its default size, e.g. the
multi-site run at the paper's 5000 jobs per trace; the stored command says so.

Without `--full` only the page is regenerated from the stored results (a few
seconds to a minute). `tests/experiments/test_pages.py` checks that each page
says what this script would write. Commit the code first: the stored results name
the commit they were made at, and a dirty tree is marked `-dirty`.

A new paper's reproduction is a package `schedlib/experiments/NAME/` with the rooms
every reproduction has (`setup`, `runs`, `findings`, `page`, `cli`: the docstring of
`schedlib.experiments` says what each holds), added to `REPRODUCTIONS`; its page is
`docs/reproductions/NAME.md`, whose generated sections come from the `page` room's
`page_sections` and the common ones. Run this script once with `NAME --full`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()

    commit = git("rev-parse", "--short=10", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "schedlib")
    return commit + ("-dirty" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from schedlib.experiments import REPRODUCTIONS, documented, reproduction
    from schedlib.experiments.every_paper import run_reproduction
    from schedlib.experiments.pages import (
        common_sections,
        fill,
        quick_document,
        reference_sections,
        results_document,
        running_times_table,
    )
    from schedlib.experiments.pages import sections as sections_of
    from schedlib.results.tables import jsonable

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[*REPRODUCTIONS, []], metavar="NAME")
    parser.add_argument("--full", action="store_true", help="run the full sizes and store them")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all)")
    parser.add_argument("--dask-local", type=int, default=None, metavar="N",
                        help="run the full run on a dask LocalCluster of N workers")  # fmt: skip
    parser.add_argument("--resume", metavar="FILE", default=None,
                        help="read the full run back from FILE (filled by schedlib reproduce "
                        "NAME --resume FILE); one NAME, with --full")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="the full run's --jobs (one NAME, with --full)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.resume is not None and (not args.full or len(args.names) != 1):
        parser.error("--resume needs --full and one NAME")
    if args.jobs is not None and (not args.full or len(args.names) != 1):
        parser.error("--jobs needs --full and one NAME")
    for name in args.names or list(REPRODUCTIONS):
        module = reproduction(name)
        if args.full:
            print(f"{name}: full run ...", file=sys.stderr, flush=True)
            outcome = run_reproduction(
                name,
                workers=args.workers,
                resume=args.resume,
                dask_local=args.dask_local,
                jobs=args.jobs,
            )
            keep = getattr(module, "documented_rows", None)  # the rows its page needs
            command = f"schedlib reproduce {name}"
            if args.jobs is not None:
                command += f" --jobs {args.jobs}"
            if args.resume is not None:
                command += f" --resume {Path(args.resume).name}"
            doc = results_document(
                name=name,
                command=command,
                commit=_commit(),
                date=datetime.date.today().isoformat(),
                data=outcome.data,
                rows=keep(outcome.rows) if keep is not None else outcome.rows,
                claims=outcome.claims,
            )
            summary = getattr(module, "documented_summary", None)  # e.g. CPU time per group
            if summary is not None:
                doc |= summary(outcome.rows)
            target = ROOT / "schedlib" / "experiments" / "documented" / f"{name}.json"
            target.parent.mkdir(exist_ok=True)
            previous = documented.load(name)
            moved = documented.moved_verdicts(previous, jsonable(doc))
            print(f"{name}: {len(moved)} verdict(s) moved from the stored result"
                  + (f" ({previous['command']}, {previous['date']})" if previous else ""),
                  file=sys.stderr)  # fmt: skip
            for m in moved:
                print(f"  {m['claim']} [{m['column']}]: {m['before']} -> {m['after']}"
                      f" ({m['ours']})", file=sys.stderr)  # fmt: skip
            target.write_text(
                json.dumps(jsonable(doc), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            for figure, draw in module.figures().items():
                draw(outcome.rows, str(ROOT / "docs" / "reproductions" / figure))
            print(f"{name}: {outcome.seconds:.0f} s, stored {target.name}", file=sys.stderr)
        full = documented.load(name)
        if full is None:
            print(f"{name}: no documented results: run with --full first", file=sys.stderr)
            return 2
        quick = quick_document(name)
        page = ROOT / "docs" / "reproductions" / f"{name}.md"
        sections = {**common_sections(full, quick), **module.page_sections(full, quick)}
        page.write_text(fill(page.read_text(encoding="utf-8"), sections), encoding="utf-8")
        print(f"{name}: {page.relative_to(ROOT)} regenerated", file=sys.stderr)
        extra = getattr(module, "extra_pages", None)  # other pages quoting the full run
        for relative, generated in (extra(full, quick) if extra is not None else {}).items():
            other = ROOT / relative
            text = other.read_text(encoding="utf-8")  # its other sections kept as they are
            other.write_text(fill(text, {**sections_of(text), **generated}), encoding="utf-8")
            print(f"{name}: {relative} regenerated", file=sys.stderr)
    reference = ROOT / "docs" / "reproductions" / "index.md"
    reference.write_text(fill(reference.read_text(encoding="utf-8"), reference_sections()),
                         encoding="utf-8")  # fmt: skip
    performance = ROOT / "docs" / "performance.md"
    text = performance.read_text(encoding="utf-8")  # its other sections kept as they are
    times = {**sections_of(text), "reproduction-times": running_times_table()}
    performance.write_text(fill(text, times), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
