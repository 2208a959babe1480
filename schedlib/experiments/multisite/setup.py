"""The set-up of Sabin et al. (2003) §3: the traces, the four sites, the load factors.

The paper's traces, load factors and schemes, the sizes of a full run, and one
replicate's workload ([`paper_workload`][schedlib.experiments.multisite.paper_workload]):
the first jobs of a trace, four copies, job classes drawn for the replicate.
"""

from __future__ import annotations

from schedlib.multisite import (
    POLICIES,
    MultiSiteJob,
    RuntimeMatrix,
    multisite_workload,
    with_data_sizes,
)
from schedlib.replicates import stream
from schedlib.workloads.locate import KNOWN_TRACES, TraceSource, load_trace

NAME = "multisite"
PAPER = "Sabin et al. (2003)"
"""The paper this module reproduces, as cited in tables."""
SUMMARY = (
    "Sabin et al. (2003): greedy, multiple requests, efficacy on four heterogeneous sites "
    "(CTC-SP2, SDSC-SP2)"
)

LOAD_FACTORS = (1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""The paper's load factors (§3)."""
TRACES = tuple(KNOWN_TRACES)
"""The paper's traces by short name ([`KNOWN_TRACES`][schedlib.workloads.locate.KNOWN_TRACES])."""
COMPARED = (*POLICIES, "single-easy", "single-conservative")
"""The schemes of the policy comparison (§4-§6), then the single-site pair (§5, Fig. 5)."""
K_PAPER = "efficacy"
"""The queue of the paper's $K$ sweeps (§7; the captions of Figures 13-14)."""
K_OURS = ("greedy-mr", "conservative-mr")
"""Our extra $K$ sweeps (not the paper's)."""
REPLICATES = 5
"""Replicates (class seeds) of a full run."""
PAPER_JOBS = 5000
"""Jobs per trace in the paper: the first 5000 of each trace (§3)."""
JOBS = PAPER_JOBS
"""Jobs per trace of a full run, the default of `--jobs`: the paper's size and the
documented result's, so a run of the default options reproduces the documented page. It
takes CPU hours (conservative backfilling with compression grows faster than the square
of the trace at the high load factors: the reservations it must move do, see the
Performance page), stated by `--help` and measured on the page, to be spread with
`--dask-local N` or `--scheduler ADDRESS` and kept with `--resume FILE` (the how-to "Run
the paper-size multi-site reproduction on a cluster"); `--jobs 1000` runs a fifth of the
trace in CPU minutes."""

TIE_RULES: dict[str, tuple[str, str]] = {
    "site-order-index": (
        "site_order='index'",
        "at one instant, every site in index order decides (a site changed by a withdrawal "
        "decides in the same sweep if it comes later), instead of only the sites changed "
        "when the round began",
    ),
    "admission-drop": (
        "admission_tie='drop'",
        "a copy due now is dropped when another copy is expected to complete at the same "
        "time, instead of only when another completes strictly earlier",
    ),
    "equal-speed-keep": (
        "equal_speed='keep'",
        "cancel-slower keeps the copies whose requested time equals the starting one's, "
        "instead of cancelling them with the slower ones",
    ),
    "reserve-at-pass": (
        "reserve_on_arrival=False",
        "the copies of one instant get their reservations together at the scheduling pass, "
        "so a completion-time query does not see the copies sent earlier in that instant",
    ),
}
"""The tie rules the paper leaves open that the reproduction measures: name -> (the option of
[`simulate_multisite`][schedlib.multisite.simulate_multisite] or
[`MetaPolicy`][schedlib.multisite.MetaPolicy] that selects the other reading, what that
reading does). The defaults are the library's; the `ties` group of the grid runs each other
reading where it can change a schedule."""


def paper_workload(
    source: TraceSource, jobs: int, seed: int, replicate: int, *, data_sizes: bool = False
) -> tuple[int, tuple[MultiSiteJob, ...]]:
    """The first `jobs` jobs of a trace, four copies, classes drawn for (seed, replicate).

    Parameters
    ----------
    source
        The trace, as found by [`find_trace`][schedlib.workloads.locate.find_trace].
    jobs
        How many of its first job records.
    seed, replicate
        The stream of the job classes (and of the data sizes).
    data_sizes
        Also draw each job's data size (500 MB-3 GB, §7) from its own stream.

    Returns
    -------
    tuple
        The processors per site and the multi-site jobs.
    """
    workload = load_trace(source, limit=jobs)
    size = workload.cluster.processors
    four = multisite_workload(
        workload.jobs,
        sites=4,
        matrix=RuntimeMatrix.paper(),
        rng=stream(seed, replicate, "multisite classes"),
    )
    if data_sizes:
        four = with_data_sizes(four, stream(seed, replicate, "multisite data sizes"))
    return size, four
