r"""Reproduction of Mine et al. (2007) §5: task deferment against standard FIFO and round robin.

`schedlib reproduce deferment` runs the paper's simulation (§5.1, Table 1):
32 desktop PCs with peak speeds 10000, 20000 and 40000 instructions per time
unit under the two-state load model, jobs of 128 tasks of U(2e6, 6e6)
instructions submitted at a regular interval, and FIFO and round robin,
standard and with task deferment bounds 1, 2, 4 and 8, over 200 trials. It
measures the paper's four measures, the overtaking jobs, the replicas and the
spare power consumed, and checks every claim of the paper
([`claims`][schedlib.experiments.deferment.claims]) under the shared verdict rules
([`schedlib.results.verdicts`][schedlib.results.verdicts]), paired over trials.

**Three experiments**, every random draw of trial $t$ under `--seed` $s$ from
[`stream(s, t, purpose)`][schedlib.replicates.stream] (purposes `"tasks"` and
`"speeds"`), so that within a trial every algorithm and interval sees the same
task sizes and speed histories (common random numbers: the same trial under two
algorithms is a pair):

| experiment | jobs | trials | algorithms | intervals |
|---|---:|---:|---|---|
| `main` | 8 (Table 1) | 200 | all | 500, 750, 1000, 2000, 4000 |
| `overtaking` | 8 | 1000 (the main 200 and 800 more) | standard FIFO | 500, 750 |
| `spare` | 32 (the text of §5.1) | 30 | all | 500 |

The paper's intervals are 500, 1000, 2000 and 4000. At 2000 and above a job
(about 990 time units alone on the grid) is finished when the next one
arrives, and at 1000 it is in its replica tail: every algorithm of the
originals-first reading gives the same schedule there, so we add 750, where
jobs overlap and the algorithms differ. The `overtaking` trials give claim
P0 ("the standard algorithms overtake") the power to see FIFO's rare
overtaking jobs; they reuse the main trials' streams, so trials 0-199 are the
main ones.

**Two readings of FIFO with replication** (§4 does not say whether a job whose
tasks are all allocated is served before a later job's originals; see
[`ReplicaOrder`][schedlib.deferment.selection.ReplicaOrder]):

- `originals-first` (the default): a pass hands out the originals of every job
  before any replica;
- `head-job`: FIFO serves the head job, replicas included, until it completes,
  so jobs run one at a time.

Round robin always hands out originals first. Both readings run by default;
each claim's verdict under the default reading is the paper's count (and the Holm
family), its verdict under the other reading is shown beside it
(`--fifo-reading head-job` counts the other).

**Measures** (§5.1, "Performance Measures"), for a job submitted at $s$ whose
first task instance starts at $b$ and whose last task completes at $e$:

| measure | definition |
|---|---|
| computation time | $e - b$ |
| waiting time | $b - s$ |
| total time | $e - s$ (= computation + waiting) |
| std. dev. of total time | population std. dev. of the total times of one trial's jobs |
| spare power consumed | instructions computed by every instance (cancelled replicas' work
  included), % of the tasks' instructions |

Per trial, the first three are means over the trial's jobs.

**Choices where the paper is silent** (documented on the reproduction page):
processor $i$ has peak `peaks[i % 3]` (11, 11 and 10 PCs of each speed);
task sizes are integers drawn uniformly; jobs are numbered in submission
order and job $i$ is submitted at $i \times$ interval; every algorithm, the
standard ones included, replicates tasks (so that the comparison isolates
deferment; `--no-replication` turns it off for all); the jobs' task sizes are
drawn independently (`--identical-jobs`: every job gets the first job's tasks,
the other reading of "all the jobs are the same construction").

**Rooms** (those of every reproduction, see [`schedlib.experiments`][schedlib.experiments];
none folded). The settings, Table 1's and ours, the readings of FIFO, the variants and
one trial's tasks and grid make up [`setup`][schedlib.experiments.deferment.setup]. A
trial and its measures, the three experiments and their summaries:
[`runs`][schedlib.experiments.deferment.runs]. Every claim with its margin:
[`findings`][schedlib.experiments.deferment.findings]. What the documented results keep
of a run, the page's sections and figure: [`page`][schedlib.experiments.deferment.page].
The command: [`cli`][schedlib.experiments.deferment.cli]. Every public name of the rooms
is re-exported here.

Examples
--------
>>> settings = ExperimentSettings(trials=2, jobs=2, tasks=4, processors=3, intervals=(500,),
...                               bounds=(1,), overtaking_trials=2, spare_trials=0)
>>> from schedlib.experiments.running import Execution
>>> table = reproduce(settings, Execution(workers=1))
>>> [(r["algorithm"], r["reading"], r["bound"]) for r in table
...  if r["kind"] == "summary" and r["experiment"] == "main"]
[('fifo', 'originals-first', None), ('fifo', 'originals-first', 1), ('fifo', 'head-job', None),
 ('fifo', 'head-job', 1), ('round_robin', None, None), ('round_robin', None, 1)]
>>> [c.key for c in claims(table)][:3]
['never-overtakes', 'standard-fifo-overtakes', 'standard-rr-overtakes']
"""

from schedlib.experiments.deferment.cli import add_arguments, data, main, rows
from schedlib.experiments.deferment.findings import QUICK_DIFFERS, claims
from schedlib.experiments.deferment.page import documented_rows, figures, page_sections, plot
from schedlib.experiments.deferment.runs import (
    job_measures,
    reproduce,
    run_trial,
    summarize,
    task_cost,
    task_key,
)
from schedlib.experiments.deferment.setup import (
    DEFAULT_READING,
    NAME,
    OVERLAP,
    PAPER,
    PAPER_INTERVALS,
    PAPER_PEAKS,
    READINGS,
    SUMMARY,
    ExperimentSettings,
    Variant,
    trial_workload,
    variants,
)

__all__ = [
    "DEFAULT_READING",
    "NAME",
    "OVERLAP",
    "PAPER",
    "PAPER_INTERVALS",
    "PAPER_PEAKS",
    "QUICK_DIFFERS",
    "READINGS",
    "SUMMARY",
    "ExperimentSettings",
    "Variant",
    "add_arguments",
    "claims",
    "data",
    "documented_rows",
    "figures",
    "job_measures",
    "main",
    "page_sections",
    "plot",
    "reproduce",
    "rows",
    "run_trial",
    "summarize",
    "task_cost",
    "task_key",
    "trial_workload",
    "variants",
]
