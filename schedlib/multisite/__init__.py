"""Multi-site heterogeneous scheduling: multiple reservations, efficacy, message costs.

The family of Sabin, Kettimuthu, Rajan and Sadayappan, "Scheduling of Parallel
Jobs in a Heterogeneous Multi-Site Environment" (JSSPP 2003, LNCS 2862),
§3-§7: one stream of parallel jobs over several sites, each a homogeneous
cluster whose speed depends on the job's class; greedy placement by
instantaneous load, multiple simultaneous requests with atomic cancellation
(start-based with EASY, completion-based with conservative backfilling),
efficacy as a queue priority, fewer copies chosen by load or by completion
time, control messages and data transfer. Each site schedules its queue with
the single-site backfilling core, [`schedlib.backfill`][schedlib.backfill]
(the paper's §2), the floor this family stands on.

One concept per module:

- [`sites`][schedlib.multisite.sites]: sites and the runtime factor of each job class at each site
  (Table 1);
- [`jobs`][schedlib.multisite.jobs]: multi-site jobs and the workload transforms of the experiments;
- [`formulas`][schedlib.multisite.formulas]: instantaneous load, efficacy, utilisations, makespan;
- [`policies`][schedlib.multisite.policies]: the metascheduling policies and their pure decision
  rules;
- [`state`][schedlib.multisite.state]: the run's state (a core private to the run);
- [`scheduling_pass`][schedlib.multisite.scheduling_pass]: each site's backfilling, then the
  metascheduler's rules;
- [`model`][schedlib.multisite.model]: the model on the shared engine and
  [`simulate_multisite`][schedlib.multisite.model.simulate_multisite].
"""

from schedlib.multisite.formulas import (
    effective_utilisation,
    efficacy,
    instantaneous_load,
    makespan,
    raw_utilisation,
)
from schedlib.multisite.jobs import (
    DATA_MB,
    LINK_MBPS,
    SHIFT,
    MultiSiteJob,
    exact_requested_times,
    multisite_workload,
    scaled,
    transfer_time,
    with_data_sizes,
    with_load_factor,
)
from schedlib.multisite.model import (
    MultiSiteModel,
    MultiSiteRun,
    simulate_multisite,
    site_of,
)
from schedlib.multisite.policies import (
    CONSERVATIVE_MR,
    CONSERVATIVE_MR_SLOWER,
    EFFICACY,
    GREEDY,
    GREEDY_MR,
    POLICIES,
    Cancel,
    Local,
    MetaPolicy,
    Priority,
    Selection,
    StartRule,
    admit,
    attempt_messages,
    copies_to_cancel,
    least_sites,
    query_messages,
    queue_key,
)
from schedlib.multisite.scheduling_pass import (
    MultiSiteSetting,
    expected_completion,
    plan_site,
    run_pass,
    stop_running,
    withdraw,
)
from schedlib.multisite.sites import (
    PAPER_CLASSES,
    PAPER_MACHINES,
    PAPER_RUNTIMES,
    RuntimeMatrix,
    Site,
    assign_classes,
    paper_sites,
)
from schedlib.multisite.state import (
    ExactSum,
    RunCore,
    Running,
    SiteCore,
)

__all__ = [
    "CONSERVATIVE_MR",
    "CONSERVATIVE_MR_SLOWER",
    "DATA_MB",
    "EFFICACY",
    "GREEDY",
    "GREEDY_MR",
    "LINK_MBPS",
    "PAPER_CLASSES",
    "PAPER_MACHINES",
    "PAPER_RUNTIMES",
    "POLICIES",
    "SHIFT",
    "Cancel",
    "ExactSum",
    "Local",
    "MetaPolicy",
    "MultiSiteJob",
    "MultiSiteModel",
    "MultiSiteRun",
    "MultiSiteSetting",
    "Priority",
    "RunCore",
    "Running",
    "RuntimeMatrix",
    "Selection",
    "Site",
    "SiteCore",
    "StartRule",
    "admit",
    "assign_classes",
    "attempt_messages",
    "copies_to_cancel",
    "effective_utilisation",
    "efficacy",
    "exact_requested_times",
    "expected_completion",
    "instantaneous_load",
    "least_sites",
    "makespan",
    "multisite_workload",
    "paper_sites",
    "plan_site",
    "query_messages",
    "queue_key",
    "raw_utilisation",
    "run_pass",
    "scaled",
    "simulate_multisite",
    "site_of",
    "stop_running",
    "transfer_time",
    "with_data_sizes",
    "with_load_factor",
    "withdraw",
]
