"""Conformance checks for availability, preemption, deferment, frequency and multisite.

Each family takes a scheduler in the form its entry point already accepts
for variants, runs it on schedlib's engine for that model, and checks the
basics plus the family's own invariants (from
[`schedlib.testing.invariants`][schedlib.testing.invariants]):

| family | the scheduler | run by |
|---|---|---|
| `"availability"` | a `MappingPolicy` or a policy name | `simulate_volatile_grid(policy=...)` |
| `"preemption"` | `NodeSnapshot -> Decision` or a name | `simulate_grid(policy=...)` |
| `"deferment"` | `GridView -> Selection` | `run_grid(jobs, processors, scheduler)` |
| `"frequency"` | a `PoolRules` or a policy name | `simulate_pool(policy=...)` |
| `"multisite"` | a `MetaPolicy` or a policy name | `simulate_multisite(policy=...)` |

Inputs come from the family's strategies in
[`schedlib.testing.strategies`][schedlib.testing.strategies], at small sizes;
`options` are passed to the strategy (e.g. `max_jobs`), except the run
settings each family documents below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedlib.testing.conformance.core import Check, Family, _call, basic_checks, register
from schedlib.testing.invariants import (
    check_capacity,
    check_completion_bound,
    check_copies_withdrawn,
    check_failures_handled,
    check_migration_limits,
    check_migrations_start,
    check_multisite_reservations,
    check_no_failures,
    check_no_overtaking,
    check_no_starvation,
    check_node_capacity,
    check_one_execution_at_a_time,
    check_pool_run,
    check_progress_conserved,
    check_replicas_cancelled,
    check_tasks_complete_once,
    check_unschedulable_reported,
    check_within_one_site,
    check_within_uptime,
    check_work_matches_speeds,
)

__all__ = ["AVAILABILITY", "DEFERMENT", "FREQUENCY", "MULTISITE", "PREEMPTION"]

BUDGET = 50_000
"""Engine events allowed per run: a small input that needs more is looping."""

Verify = Callable[[Callable[[Any], Any], Any], None]

VERBOVEN = "Verboven et al. (2008) §2-§4"
BALA = "Balasubramanian et al. (2013)"
MINE = "Mine et al. (2007)"
CSS600 = "the CSS 600 term report"
SABIN_MS = "Sabin et al. (2003)"


def _family(
    name: str,
    scheduler: str,
    runner: Callable[[str, Any, Mapping[str, Any]], Any],
    instances: Callable[[Mapping[str, Any], Check], Any],
    *,
    entry: str,
    unpack: str,
    call: str,
    record_of: Callable[[Any, Any], Any],
    capacity: Callable[[Any, Any], None],
    capacity_asserts: str,
    reference: str,
    capacity_snippet: str = "",
    settings: Sequence[str] = (),
    checks: tuple[Check, ...],
) -> Family:
    """Register a family whose schedulers come in one form: the basics, then `checks`."""
    imports = f"from schedlib.{name} import {entry}\nfrom schedlib.{name} import *  # the types"
    basics = basic_checks(
        name,
        record_of,
        capacity,
        capacity_asserts=capacity_asserts,
        reference=reference,
        capacity_snippet=capacity_snippet,
    )
    return register(
        Family(
            name,
            {"scheduler": scheduler},
            lambda _: "scheduler",
            runner,
            instances,
            _reproducer(imports, unpack, call, settings),
            (*basics, *checks),
        )
    )


def _strategy(
    factory: Callable[..., Any], defaults: Mapping[str, Any], options: Mapping[str, Any]
) -> Any:
    import inspect

    accepted = inspect.signature(factory).parameters
    bounds = dict(defaults)
    bounds.update({k: v for k, v in options.items() if k in accepted})
    return factory(**bounds)


def _instance_source(instance: Any, imports: str) -> str:
    """Source rebuilding `instance`: its repr when that evaluates back to it, else a pickle."""
    import base64
    import pickle

    text = repr(instance)
    namespace: dict[str, Any] = {}
    try:
        exec(imports, namespace)
        if eval(text, namespace) == instance:
            return f"instance = {text}"
    except Exception:  # a repr that is not Python: fall back on the pickle
        pass
    blob = base64.b64encode(pickle.dumps(instance)).decode()
    chunks = "\n".join(f'    "{blob[i : i + 88]}"' for i in range(0, len(blob), 88))
    return (
        f"# instance = {text}\n"
        "import base64, pickle  # the exact input (its repr above does not evaluate)\n"
        f"instance = pickle.loads(base64.b64decode(\n{chunks}\n))"
    )


def _reproducer(
    imports: str, unpack: str, call: str, settings: Sequence[str] = ()
) -> Callable[[Any, str, str, Check, Mapping[str, Any]], str]:
    def reproduce(
        instance: Any, form: str, name: str, check: Check, options: Mapping[str, Any]
    ) -> str:
        given = "".join(f", {k}={options[k]!r}" for k in settings if k in options)
        lines = [
            imports,
            _instance_source(instance, imports),
            unpack,
            call.format(name=name, settings=given),
        ]
        if check.snippet:
            lines.append(check.snippet)
        lines.append(f"# violated: {check.name}: {check.asserts}")
        return "\n".join(lines)

    return reproduce


def _source(checker: str, arguments: str) -> str:
    """Source importing `checker` and calling it with `arguments` (in a reproduction)."""
    return f"from schedlib.testing.invariants import {checker}\n{checker}({arguments})"


def _on(record_of: Callable[[Any, Any], Any], check: Callable[[Any, Any], None]) -> Verify:
    def verify(run: Callable[[Any], Any], instance: Any) -> None:
        result = run(instance)
        check(record_of(result, instance), (result, instance))

    return verify


def _guarantee(
    family: str,
    name: str,
    asserts: str,
    reference: str,
    verify: Verify,
    snippet: str = "",
    *,
    basic: bool = False,
) -> Check:
    return Check(name, family, asserts, reference, basic, verify, snippet=snippet)


# ------------------------------------------------------------------------ availability


def _availability_runner(form: str, policy: Any, options: Mapping[str, Any]) -> Any:
    from schedlib.availability import simulate_volatile_grid

    def run(instance: Any) -> Any:
        jobs, resources, queue_length = instance
        return simulate_volatile_grid(
            jobs,
            resources,
            policy=policy,
            queue_length=queue_length,
            seed=options.get("seed", 0),
            max_failures=options.get("max_failures", 5),
            max_events=BUDGET,
        )

    return run


def _availability_instances(options: Mapping[str, Any], check: Check) -> Any:
    from schedlib.testing.strategies import volatile_grids

    return _strategy(volatile_grids, {"max_jobs": 8, "max_submit": 30}, options)


def _longest(instance: Any) -> float:
    return float(max(r.planned.longest_uptime for r in instance[1]))


_avail_record = lambda result, instance: result.record  # noqa: E731

AVAILABILITY = _family(
    "availability",
    "a MappingPolicy or a policy name, run by simulate_volatile_grid",
    _availability_runner,
    _availability_instances,
    entry="simulate_volatile_grid",
    unpack="jobs, resources, queue_length = instance",
    call="result = simulate_volatile_grid(jobs, resources, policy={name}, "
    "queue_length=queue_length)\nrecord = result.record",
    record_of=_avail_record,
    capacity=lambda record, instance: check_capacity(record),
    capacity_asserts="no resource runs two jobs at once",
    reference=VERBOVEN,
    capacity_snippet=_call("check_capacity"),
    checks=(
        _guarantee(
            "availability",
            "failures-handled",
            "jobs fail exactly when their resource goes down, and are retried or "
            "given up after the failure limit",
            VERBOVEN,
            _on(
                _avail_record,
                lambda record, ctx: check_failures_handled(
                    record, ctx[0].up_periods, max_failures=5
                ),
            ),
            basic=True,
            snippet=_source("check_failures_handled", "record, result.up_periods, max_failures=5"),
        ),
        _guarantee(
            "availability",
            "within-uptime",
            "no job starts unless it can end by its resource's next planned down time",
            VERBOVEN + " (PGS)",
            _on(
                _avail_record,
                lambda record, ctx: check_within_uptime(record, ctx[0].up_periods),
            ),
            snippet=_source("check_within_uptime", "record, result.up_periods"),
        ),
        _guarantee(
            "availability",
            "no-failures",
            "no job ever fails (exact runtimes and availability)",
            VERBOVEN + " (PGS)",
            _on(_avail_record, lambda record, ctx: check_no_failures(record)),
            _call("check_no_failures"),
        ),
        _guarantee(
            "availability",
            "unschedulable-reported",
            "jobs longer than every uptime end unschedulable, never assigned; no other job does",
            VERBOVEN + " (PGS)",
            _on(
                _avail_record,
                lambda record, ctx: check_unschedulable_reported(record, _longest(ctx[1])),
            ),
            snippet=_source(
                "check_unschedulable_reported",
                "record, max(r.planned.longest_uptime for r in resources)",
            ),
        ),
    ),
)


# -------------------------------------------------------------------------- preemption


def _preemption_runner(form: str, policy: Any, options: Mapping[str, Any]) -> Any:
    from schedlib.preemption import simulate_grid

    settings = {k: options[k] for k in ("alpha", "beta", "delta", "overhead") if k in options}

    def run(instance: Any) -> Any:
        nodes, jobs = instance
        return simulate_grid(jobs, nodes, policy=policy, max_events=BUDGET, **settings)

    return run


def _preemption_instances(options: Mapping[str, Any], check: Check) -> Any:
    from schedlib.testing.strategies import grids

    return _strategy(grids, {"max_nodes": 3, "max_jobs": 8, "exact_estimates": False}, options)


_record = lambda result, instance: result  # noqa: E731


def _no_starvation(record: Any, ctx: Any) -> None:
    nodes = ctx[1][0]
    p = record.parameter
    if not p("alpha", 0.0) > 0:
        raise AssertionError(
            f"alpha = {p('alpha', 0.0)}: with no weight on waiting time no wait is bounded "
            "(a stream of short jobs can starve a long one); run with options={'alpha': 0.5}"
        )
    check_no_starvation(
        record,
        nodes,
        alpha=p("alpha", 0.5),
        beta=p("beta", 1.0),
        delta=p("delta", 5.0),
        overhead=p("overhead", 0.0),
    )


PREEMPTION = _family(
    "preemption",
    "NodeSnapshot -> Decision or a local policy name, run by simulate_grid",
    _preemption_runner,
    _preemption_instances,
    entry="simulate_grid",
    unpack="nodes, jobs = instance",
    call="record = simulate_grid(jobs, nodes, policy={name}{settings})",
    settings=("alpha", "beta", "delta", "overhead"),
    record_of=_record,
    capacity=lambda record, instance: check_node_capacity(record, instance[0]),
    capacity_snippet=_source("check_node_capacity", "record, nodes"),
    capacity_asserts="no node ever holds more of any resource than it has",
    reference=BALA + " §5",
    checks=(
        _guarantee(
            "preemption",
            "migrations-start",
            "a job moved to another node starts there at once",
            BALA + " §5.3",
            _on(_record, lambda record, ctx: check_migrations_start(record, ctx[1][0])),
            basic=True,
            snippet=_source("check_migrations_start", "record, nodes"),
        ),
        _guarantee(
            "preemption",
            "progress-conserved",
            "a preempted job keeps its progress and runs exactly its work in total",
            BALA + " §5.1",
            _on(
                _record,
                lambda record, ctx: check_progress_conserved(
                    record, ctx[1][0], overhead=record.parameter("overhead", 0.0)
                ),
            ),
            basic=True,
            snippet=_source(
                "check_progress_conserved",
                "record, nodes, overhead=record.parameter('overhead', 0.0)",
            ),
        ),
        _guarantee(
            "preemption",
            "no-starvation",
            "every waiting spell is at most the starvation bound of the priority "
            "formula (alpha > 0)",
            BALA + " §5.1",
            _on(_record, _no_starvation),
            snippet="assert record.parameter('alpha') > 0, (\n"
            "    f\"alpha = {record.parameter('alpha')}: with no weight on waiting time no wait is "
            'bounded"\n)\n'
            + _source(
                "check_no_starvation",
                "record, nodes, alpha=record.parameter('alpha'), beta=record.parameter('beta'), "
                "delta=record.parameter('delta'), overhead=record.parameter('overhead')",
            ),
        ),
    ),
)


# --------------------------------------------------------------------------- deferment


def _deferment_runner(form: str, scheduler: Any, options: Mapping[str, Any]) -> Any:
    from schedlib.deferment import run_grid

    def run(instance: Any) -> Any:
        jobs, processors = instance
        return run_grid(jobs, processors, scheduler, max_events=BUDGET)

    return run


def _deferment_instances(options: Mapping[str, Any], check: Check) -> Any:
    from schedlib.testing.strategies import desktop_grids

    return _strategy(desktop_grids, {}, options)


DEFERMENT = _family(
    "deferment",
    "GridView -> Selection (e.g. fifo(1)), run by run_grid",
    _deferment_runner,
    _deferment_instances,
    entry="run_grid",
    unpack="jobs, processors = instance",
    call="record = run_grid(jobs, processors, {name})",
    record_of=_record,
    capacity=lambda record, instance: check_capacity(record),
    capacity_asserts="no processor runs two task instances at once",
    reference=MINE + " §2-§4",
    capacity_snippet=_call("check_capacity"),
    checks=(
        _guarantee(
            "deferment",
            "tasks-complete-once",
            "every task of a finished job completes exactly once",
            MINE + " §2",
            _on(_record, lambda record, ctx: check_tasks_complete_once(record)),
            _call("check_tasks_complete_once"),
            basic=True,
        ),
        _guarantee(
            "deferment",
            "replicas-cancelled",
            "when a task completes, its other instances are cancelled at once",
            MINE + " §2 (replication)",
            _on(_record, lambda record, ctx: check_replicas_cancelled(record)),
            _call("check_replicas_cancelled"),
            basic=True,
        ),
        _guarantee(
            "deferment",
            "work-matches-speeds",
            "each task instance runs exactly as long as its processor's speeds require",
            MINE + " §2",
            _on(_record, lambda record, ctx: check_work_matches_speeds(record, ctx[1][1])),
            basic=True,
            snippet=_source("check_work_matches_speeds", "record, processors"),
        ),
        _guarantee(
            "deferment",
            "no-overtaking",
            "no job finishes before a strictly smaller job submitted earlier",
            MINE + " §4 (task deferment)",
            _on(_record, lambda record, ctx: check_no_overtaking(record)),
            _call("check_no_overtaking"),
        ),
    ),
)


# --------------------------------------------------------------------------- frequency


def _frequency_runner(form: str, policy: Any, options: Mapping[str, Any]) -> Any:
    from schedlib.frequency import simulate_pool

    def run(instance: Any) -> Any:
        jobs, nodes, settings = instance
        return simulate_pool(jobs, nodes, policy=policy, max_events=BUDGET, **settings)

    return run


def _frequency_instances(options: Mapping[str, Any], check: Check) -> Any:
    from schedlib.testing.strategies import pools

    return _strategy(pools, {"max_remote": 2, "max_jobs": 6}, options)


def _pool_nodes(instance: Any) -> Sequence[Any]:
    return tuple(instance[1])


FREQUENCY = _family(
    "frequency",
    "a PoolRules or a policy name, run by simulate_pool",
    _frequency_runner,
    _frequency_instances,
    entry="simulate_pool",
    unpack="jobs, nodes, settings = instance",
    call="record = simulate_pool(jobs, nodes, policy={name}, **settings)",
    record_of=_record,
    capacity=lambda record, instance: check_capacity(record),
    capacity_asserts="no node runs two jobs at once",
    reference=CSS600 + " (PFS / MFS)",
    capacity_snippet=_call("check_capacity"),
    checks=(
        _guarantee(
            "frequency",
            "pool-rules",
            "every pool invariant of the record's policy: bursts complete, work "
            "conserved, short bursts stay, preemption and migration counts, wait bounds",
            CSS600 + " (PFS / MFS)",
            _on(_record, lambda record, ctx: check_pool_run(record, _pool_nodes(ctx[1]))),
            snippet=_source("check_pool_run", "record, nodes"),
        ),
        _guarantee(
            "frequency",
            "migration-limits",
            "MF never exceeds MAX_MF + 1 and a banned job never migrates again",
            CSS600 + " (MFS)",
            _on(
                _record,
                lambda record, ctx: check_migration_limits(
                    record, _pool_nodes(ctx[1]), max_mf=ctx[1][2].get("max_mf", 2)
                ),
            ),
            snippet=_source(
                "check_migration_limits", "record, nodes, max_mf=settings.get('max_mf', 2)"
            ),
        ),
    ),
)


# --------------------------------------------------------------------------- multisite


def _multisite_runner(form: str, policy: Any, options: Mapping[str, Any]) -> Any:
    from schedlib.multisite import simulate_multisite

    def run(instance: Any) -> Any:
        sites, matrix, jobs = instance
        return simulate_multisite(
            jobs, sites, policy, matrix=matrix, log_reservations=True, max_events=BUDGET
        )

    return run


def _multisite_instances(options: Mapping[str, Any], check: Check) -> Any:
    from schedlib.testing.strategies import multisite_instances

    return _strategy(multisite_instances, {"max_sites": 3, "max_jobs": 6}, options)


_ms_record = lambda result, instance: result.record  # noqa: E731


def _sizes(result: Any) -> list[int]:
    return [site.processors for site in result.sites]


def _withdrawn(record: Any, ctx: Any) -> None:
    result = ctx[0]
    check_copies_withdrawn(
        record, cancel=record.parameter("cancel"), estimates=result.estimates, sites=_sizes(result)
    )


MULTISITE = _family(
    "multisite",
    "a MetaPolicy or a policy name, run by simulate_multisite",
    _multisite_runner,
    _multisite_instances,
    entry="simulate_multisite",
    unpack="sites, matrix, jobs = instance",
    call="result = simulate_multisite(jobs, sites, {name}, matrix=matrix, "
    "log_reservations=True)\nrecord = result.record",
    record_of=_ms_record,
    capacity=lambda record, instance: check_capacity(record),
    capacity_asserts="no processor of any site is used twice at once",
    reference=SABIN_MS + " §3-§7",
    capacity_snippet=_call("check_capacity"),
    checks=(
        _guarantee(
            "multisite",
            "one-site",
            "each execution runs within one site",
            SABIN_MS + " §3",
            _on(
                _ms_record,
                lambda record, ctx: check_within_one_site(record, sites=_sizes(ctx[0])),
            ),
            basic=True,
            snippet=_source(
                "check_within_one_site", "record, sites=[site.processors for site in sites]"
            ),
        ),
        _guarantee(
            "multisite",
            "one-execution",
            "a job runs at most one copy at a time",
            SABIN_MS + " §3",
            _on(_ms_record, lambda record, ctx: check_one_execution_at_a_time(record)),
            _call("check_one_execution_at_a_time"),
            basic=True,
        ),
        _guarantee(
            "multisite",
            "copies-withdrawn",
            "when one copy of a job starts, its other copies are withdrawn as the policy says",
            SABIN_MS + " §3",
            _on(_ms_record, _withdrawn),
            snippet=_source(
                "check_copies_withdrawn",
                "record, cancel=record.parameter('cancel'), estimates=result.estimates, "
                "sites=[site.processors for site in sites]",
            ),
        ),
        _guarantee(
            "multisite",
            "multisite-reservations",
            "on conservative sites, reservations are made on arrival, never move "
            "later, and are kept",
            SABIN_MS + " §4",
            _on(
                _ms_record,
                lambda record, ctx: check_multisite_reservations(record, sites=_sizes(ctx[0])),
            ),
            snippet=_source(
                "check_multisite_reservations", "record, sites=[site.processors for site in sites]"
            ),
        ),
        _guarantee(
            "multisite",
            "completion-bound",
            "no starvation: each job ends by the bound its estimates give (efficacy priority)",
            SABIN_MS + " §6",
            _on(
                _ms_record,
                lambda record, ctx: check_completion_bound(record, estimates=ctx[0].estimates),
            ),
            snippet=_source("check_completion_bound", "record, estimates=result.estimates"),
        ),
    ),
)
