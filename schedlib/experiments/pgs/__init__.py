"""Reproduction of Verboven et al. (2008) §4: PGS against CoBRA's FCFS on resources that restart.

Eight resources with the uptimes of Table 1 (84 ... 864 s), each restarted
after 1 s and available again 1.2 s after going down on average (§4.2), run
three sets of sleep jobs of 482 minutes each, submitted in increasing order
of size; scenario 0 runs job set 1 on resources that never go down (§4.3).
The total runtime (makespan) of PGS and FCFS is compared, as in Table 2, and
every claim of §4-§6 is judged over independent replicates
([`claims`][schedlib.experiments.pgs.claims]).

The paper leaves open how its rig differed from the bare model; each reading
it implies is an option ([`Reading`][schedlib.experiments.pgs.Reading]): a
per-job overhead (`--overhead`, told to PGS's $tl$ or not: `--overhead-known`),
random starting phases of the resources (`--phases random`), the copies of
each job size submitted as sweeps (`--order sweeps`), the queue length
(`--queue-length`), PGS's step 1 for busy resources too (`--first-job
empty-queue`) and the order in which PGS takes the jobs, apart from the
submission order FCFS sees (`--pgs-order`). By default the run also measures
each named reading of [`READINGS`][schedlib.experiments.pgs.READINGS]
(`--readings none` skips them), and each run's time per resource: busy, idle,
down, and when it started its last job.

```text
schedlib reproduce pgs [--runs N] [--seed S] [--queue-length Q]
                       [--order {increasing,sweeps,shuffled,decreasing}]
                       [--pgs-order {increasing,sweeps,shuffled,decreasing}]
                       [--overhead SECONDS] [--overhead-known] [--phases {zero,random}]
                       [--first-job {idle,empty-queue}] [--readings {all,none}]
                       [--resource-order {rejoined,index}]
                       [--workers N | --dask-local N | --scheduler ADDRESS] [--resume FILE]
                       [--format table|json|csv] [--plot out.png] [--claims] [--quick]
```

Replicate $r$ of a run with `--seed s` draws its restart delays, its starting
phases and its shuffled order from
[`schedlib.replicates.stream`][schedlib.replicates.stream]`(s, r, purpose)`
(purposes `"restarts"`, `"phases"`, `"order"`): PGS and FCFS, and every
reading, see the same draws in the same replicate (paired), and two seeds never
share a replicate.

**Rooms** (those of every reproduction, see [`schedlib.experiments`][schedlib.experiments];
none folded): [`setup`][schedlib.experiments.pgs.setup] holds Table 1's resources, the
job sets, the scenarios, Table 2's figures and the readings of the paper's rig;
[`runs`][schedlib.experiments.pgs.runs] one run, every run of the design and the
summaries beside Table 2; [`findings`][schedlib.experiments.pgs.findings] the claims of
§4-§6 with their margins; [`page`][schedlib.experiments.pgs.page] the page's generated
sections and figures; [`cli`][schedlib.experiments.pgs.cli] the command. Every public
name of the rooms is re-exported here.

Examples
--------
>>> jobs = job_set(3)
>>> len(jobs), sum(j.runtime for j in jobs) / 60
(240, 482.0)
>>> LOWER_BOUND_MINUTES
60.25
>>> [j.runtime for j in job_set(1, "sweeps")[239:242]]
[60, 0.25, 0.5]
"""

from schedlib.experiments.pgs.cli import add_arguments, data, main, rows
from schedlib.experiments.pgs.findings import (
    BOUND_TOLERANCE_MINUTES,
    NO_OVERHEAD,
    OVERHEAD_MARGIN_PERCENT,
    QUICK_DIFFERS,
    SD_BOUND_PERCENT,
    SPREAD_BOUND_PERCENT,
    Series,
    claims,
    paper_margin,
)
from schedlib.experiments.pgs.page import (
    documented_rows,
    figures,
    page_sections,
    plot,
    plot_idle,
    plot_readings,
)
from schedlib.experiments.pgs.runs import PER_RESOURCE, Task, deterministic, reproduce, run_once
from schedlib.experiments.pgs.setup import (
    DOWNTIME,
    FIRST_JOBS,
    IMPLIED_OVERHEAD,
    LOWER_BOUND_MINUTES,
    NAME,
    ORDERS,
    PAPER,
    PAPER_DIFFERENCE,
    PAPER_READING,
    PAPER_RUNS,
    PAPER_TABLE_2,
    PHASES,
    READINGS,
    RESTARTING,
    SCENARIOS,
    SCHEDULERS,
    STARTUP,
    SUMMARY,
    TABLE_1_UPTIMES,
    Reading,
    draw_phases,
    job_set,
    paper_resources,
    reading_name,
    replicate_inputs,
)

__all__ = [
    "BOUND_TOLERANCE_MINUTES",
    "DOWNTIME",
    "FIRST_JOBS",
    "IMPLIED_OVERHEAD",
    "LOWER_BOUND_MINUTES",
    "NAME",
    "NO_OVERHEAD",
    "ORDERS",
    "OVERHEAD_MARGIN_PERCENT",
    "PAPER",
    "PAPER_DIFFERENCE",
    "PAPER_READING",
    "PAPER_RUNS",
    "PAPER_TABLE_2",
    "PER_RESOURCE",
    "PHASES",
    "QUICK_DIFFERS",
    "READINGS",
    "RESTARTING",
    "SCENARIOS",
    "SCHEDULERS",
    "SD_BOUND_PERCENT",
    "SPREAD_BOUND_PERCENT",
    "STARTUP",
    "SUMMARY",
    "TABLE_1_UPTIMES",
    "Reading",
    "Series",
    "Task",
    "add_arguments",
    "claims",
    "data",
    "deterministic",
    "documented_rows",
    "draw_phases",
    "figures",
    "job_set",
    "main",
    "page_sections",
    "paper_margin",
    "paper_resources",
    "plot",
    "plot_idle",
    "plot_readings",
    "reading_name",
    "replicate_inputs",
    "reproduce",
    "rows",
    "run_once",
]
