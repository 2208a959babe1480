"""Single-site backfilling: FCFS, EASY (aggressive) and conservative, on one cluster.

The entry point is [`schedule`][schedlib.backfill.simulation.schedule] (and
[`schedule_iter`][schedlib.backfill.simulation.schedule_iter], which yields outcomes as jobs end)
(`policy=` one of [`POLICIES`][schedlib.backfill.simulation.POLICIES],
`conventions=` one of [`CONVENTIONS`][schedlib.backfill.simulation.CONVENTIONS]); the
decisions are pure functions in [`schedlib.backfill.policies`][schedlib.backfill.policies],
planning uses the availability [`Profile`][schedlib.backfill.profile.Profile],
and [`BackfillModel`][schedlib.backfill.simulation.BackfillModel] runs them on
the shared engine. See the Backfilling page of the documentation.

This package is also the floor the multi-site family stands on: each site of a
multi-site run schedules its queue with these same rules.

References
----------
Sabin, Kettimuthu, Rajan and Sadayappan (2003), "Scheduling of Parallel Jobs
in a Heterogeneous Multi-Site Environment", JSSPP 2003, LNCS 2862, §2
(backfilling); Lifka (1995), "The ANL/IBM SP scheduling system", JSSPP 1995
(EASY); Mu'alem and Feitelson (2001), "Utilization, predictability,
workloads, and user runtime estimates in scheduling the IBM SP2 with
backfilling", IEEE TPDS 12(6) (conservative backfilling).

Examples
--------
>>> from schedlib.backfill import POLICIES, schedule
>>> from schedlib.model import Cluster, Job
>>> POLICIES
('fcfs', 'easy', 'conservative')
>>> record = schedule([Job(1, 0, 2, 10, 5)], Cluster(4), policy="conservative")
>>> record.outcomes[0].end
5
"""

from schedlib.backfill.policies import (
    Decision,
    Plan,
    PlanDecision,
    Request,
    Snapshot,
    conservative,
    easy,
    fcfs,
    shadow_time,
)
from schedlib.backfill.processors import FreeProcessors
from schedlib.backfill.profile import Profile, ProfileEditor
from schedlib.backfill.reservations import Reservations
from schedlib.backfill.simulation import (
    CONVENTIONS,
    POLICIES,
    BackfillModel,
    BackfillState,
    ExcludedRecord,
    schedule,
    schedule_iter,
)

__all__ = [
    "CONVENTIONS",
    "POLICIES",
    "BackfillModel",
    "BackfillState",
    "Decision",
    "ExcludedRecord",
    "FreeProcessors",
    "Plan",
    "PlanDecision",
    "Profile",
    "ProfileEditor",
    "Request",
    "Reservations",
    "Snapshot",
    "conservative",
    "easy",
    "fcfs",
    "schedule",
    "schedule_iter",
    "shadow_time",
]
