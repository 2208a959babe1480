r"""Reproduction of Sabin et al. (2003), §3-§7: one job stream over four heterogeneous sites.

```text
schedlib reproduce multisite [--trace ctc|sdsc|both|FILE] [--traces DIR] [--jobs 5000]
                             [--replicates 5] [--load-factors 1.0,1.2,...,2.0] [--seed 0]
                             [--quick] [--claims]
                             [--workers W | --dask-local N | --scheduler ADDRESS]
                             [--resume FILE] [--format table|json|csv] [--plot out.png]
```

**Workload** ([`paper_workload`][schedlib.experiments.multisite.paper_workload]):
the first `--jobs` jobs of each trace (default
[`JOBS`][schedlib.experiments.multisite.JOBS] = 5000, the paper's
([`PAPER_JOBS`][schedlib.experiments.multisite.PAPER_JOBS]) and the documented result's
size, which takes CPU hours to be spread over workers), submitted at each of
the paper's four sites (the last two copies three hours later), each copy's
jobs given a job class (Table 1) drawn from the replicate's own random stream
([`schedlib.replicates`][schedlib.replicates]: replicate $r$ of `--seed` $s$ draws
its classes from stream $(s, r)$, and its data sizes from another). Every site is
as large as the trace's machine (CTC-SP2: 430 processors as in the paper,
although the v3.1 header says 338; SDSC-SP2: 128). A named trace absent from
the traces folder is replaced by its own embedded slice
([`schedlib.workloads.locate`][schedlib.workloads.locate]), and every row says
which. Load factors multiply every runtime and requested time and keep the
submit times (§3).

**Replicates.** The job classes are the experiment's randomness: each of the
`--replicates` replicates draws them anew, every policy of a replicate sees the
same classes (paired comparisons), and the claims are judged over the replicates
([`schedlib.results.verdicts`][schedlib.results.verdicts]).

**Rows**, one per (trace, replicate, group, policy, $K$, selection, load factor,
transfer), with `mean_turnaround` and `max_turnaround` (s), `utilisation`,
`effective_utilisation`, `messages`, `minimum_messages` and `started` (jobs
started). Five groups:

1. `policies`: at every load factor, the five schemes with every site holding a
   copy (greedy with one), and the single-site comparison: the four copies on
   one site of the same size with runtimes divided by 4 (same offered load),
   EASY (`single-easy`) against conservative (`single-conservative`) (§4-§6);
2. `k`: at the first load factor, $K = 1..4$ copies chosen by load and by
   completion time, on the **efficacy** queue as §7 did (Figures 11-12);
3. `transfer`: the same on the efficacy queue with the data-transfer model
   (500 MB-3 GB at 10 Mbps added to jobs run away from their origin, §7,
   Figures 13-14);
4. `k-ours`: the same $K$ sweep for `greedy-mr` and `conservative-mr`: not the
   paper's (marked "ours" in the claims; EASY completion-time selection, from
   the shadow time only, is our extension: §5 says completion estimates need
   conservative backfilling);
5. `ties`: at the first load factor, each other reading of a tie rule the paper
   leaves open ([`TIE_RULES`][schedlib.experiments.multisite.TIE_RULES]) beside the
   default, for its measured effect on the page.

[`claims`][schedlib.experiments.multisite.claims] checks every claim of §3-§7.

**Rooms** (those of every reproduction, see [`schedlib.experiments`][schedlib.experiments];
none folded; `setup`, at about 80 lines, is kept for the shape they share; `plots` is
split from `page`, which would grow beyond 700 lines):
[`setup`][schedlib.experiments.multisite.setup] has the traces, load factors and
schemes, the sizes of a full run and a replicate's workload;
[`runs`][schedlib.experiments.multisite.runs] one run, the design of the grid and the
rows in order; [`findings`][schedlib.experiments.multisite.findings] the claims of
§3-§7 and ours; [`page`][schedlib.experiments.multisite.page] the page's sections;
[`plots`][schedlib.experiments.multisite.plots] its figures;
[`cli`][schedlib.experiments.multisite.cli] the command. Every public name of
the rooms is re-exported here.

Examples
--------
>>> rows = reproduce(traces=("sdsc",), jobs=30, load_factors=(1.0,), replicates=2,
...                  workers=1, traces_folder=None)
>>> sorted({r["group"] for r in rows})
['k', 'k-ours', 'policies', 'ties', 'transfer']
>>> len(claims(rows)) == len(claims([]))
True
"""

from schedlib.experiments.multisite.cli import add_arguments, data, main, rows, shown
from schedlib.experiments.multisite.findings import QUICK_DIFFERS, claims, per_trace
from schedlib.experiments.multisite.page import documented_summary, extra_pages, page_sections
from schedlib.experiments.multisite.plots import figures, plot, plot_k, plot_single
from schedlib.experiments.multisite.runs import (
    GROUPS,
    K_CONFIGURATIONS,
    TIE_RUNS,
    Run,
    grid,
    reproduce,
    run_cost,
    run_key,
    run_one,
    schedule_digest,
)
from schedlib.experiments.multisite.setup import (
    COMPARED,
    JOBS,
    K_OURS,
    K_PAPER,
    LOAD_FACTORS,
    NAME,
    PAPER,
    PAPER_JOBS,
    REPLICATES,
    SUMMARY,
    TIE_RULES,
    TRACES,
    paper_workload,
)

__all__ = [
    "COMPARED",
    "GROUPS",
    "JOBS",
    "K_CONFIGURATIONS",
    "K_OURS",
    "K_PAPER",
    "LOAD_FACTORS",
    "NAME",
    "PAPER",
    "PAPER_JOBS",
    "QUICK_DIFFERS",
    "REPLICATES",
    "SUMMARY",
    "TIE_RULES",
    "TIE_RUNS",
    "TRACES",
    "Run",
    "add_arguments",
    "claims",
    "data",
    "documented_summary",
    "extra_pages",
    "figures",
    "grid",
    "main",
    "page_sections",
    "paper_workload",
    "per_trace",
    "plot",
    "plot_k",
    "plot_single",
    "reproduce",
    "rows",
    "run_cost",
    "run_key",
    "run_one",
    "schedule_digest",
    "shown",
]
