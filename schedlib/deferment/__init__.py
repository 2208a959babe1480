"""Task deferment: multi-job scheduling on a desktop grid with no job overtaking.

The family of Mine, Fujimoto, Higashi, Susukita and Hagihara, "Priority
Control to Avoid Job Overtaking in Multiple Job Scheduling for a Desktop
Grid" (PDPTA 2007): FIFO and round-robin task selection, task deferment with
bound $B$ (§4), task replication (§4), on processors whose speed varies
unpredictably (§5).

One concept per module:

- [`desktopgrid`][schedlib.deferment.desktopgrid]: multi-task jobs, processors and their speed
  histories;
- [`selection`][schedlib.deferment.selection]: task selection with deferment, a pure `GridView ->
  Selection` function;
- [`overtaking`][schedlib.deferment.overtaking]: the overtaking relation, measured on a run's
  record;
- [`state`][schedlib.deferment.state]: the farm's state and how a task instance executes;
- [`scheduling_pass`][schedlib.deferment.scheduling_pass]: the scheduler's selection, checked and
  started;
- [`farm`][schedlib.deferment.farm]: the task farm on the shared engine and
  [`run_grid`][schedlib.deferment.farm.run_grid].
"""

from schedlib.deferment.desktopgrid import (
    LoadModel,
    MarkovSpeedHistory,
    Processor,
    SpeedHistory,
    SpeedSource,
    TaskJob,
    finish_time,
    markov_grid,
    work_done,
)
from schedlib.deferment.farm import (
    TaskFarm,
    run_grid,
)
from schedlib.deferment.overtaking import (
    overtakes,
    overtaking_jobs,
    overtaking_pairs,
)
from schedlib.deferment.scheduling_pass import (
    FarmSetting,
    run_pass,
)
from schedlib.deferment.selection import (
    Allocation,
    Deferment,
    DefermentTest,
    GridView,
    JobKey,
    JobProgress,
    Order,
    ReplicaOrder,
    Scheduler,
    Selection,
    TaskSelection,
    blocking_job,
    few_unallocated,
    fifo,
    must_defer,
    round_robin,
    select_tasks,
    validate_bound,
)
from schedlib.deferment.state import (
    FarmState,
    Instance,
    advance,
)

__all__ = [
    "Allocation",
    "Deferment",
    "DefermentTest",
    "FarmSetting",
    "FarmState",
    "GridView",
    "Instance",
    "JobKey",
    "JobProgress",
    "LoadModel",
    "MarkovSpeedHistory",
    "Order",
    "Processor",
    "ReplicaOrder",
    "Scheduler",
    "Selection",
    "SpeedHistory",
    "SpeedSource",
    "TaskFarm",
    "TaskJob",
    "TaskSelection",
    "advance",
    "blocking_job",
    "few_unallocated",
    "fifo",
    "finish_time",
    "markov_grid",
    "must_defer",
    "overtakes",
    "overtaking_jobs",
    "overtaking_pairs",
    "round_robin",
    "run_grid",
    "run_pass",
    "select_tasks",
    "validate_bound",
    "work_done",
]
