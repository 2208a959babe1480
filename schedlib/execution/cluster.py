"""Where a grid runs: local processes, a dask LocalCluster, or a dask cluster at an address.

[`add_where_arguments`][schedlib.execution.cluster.add_where_arguments] gives a command
the three mutually exclusive options `--workers N`, `--dask-local N` and
`--scheduler ADDRESS` (`schedlib sweep` and every `schedlib reproduce NAME` have them);
[`executor`][schedlib.execution.cluster.executor] turns the last two into a
`concurrent.futures.Executor` for the time of a `with` block (`None`: local processes).

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="demo")
>>> add_where_arguments(parser, what="the runs")
>>> args = parser.parse_args(["--workers", "2"])
>>> with executor(args.scheduler, args.dask_local) as where:
...     where is None
True
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from concurrent.futures import Executor
from typing import Any

from schedlib.errors import SchedlibError
from schedlib.validation import positive_int

__all__ = ["add_where_arguments", "executor"]


def add_where_arguments(parser: argparse.ArgumentParser, *, what: str) -> None:
    """Add `--workers N`, `--scheduler ADDRESS` and `--dask-local N` (one of them) to `parser`.

    Parameters
    ----------
    what
        What they run, for the help texts (`"the runs"`).
    """
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help=f"local processes for {what} (default: every CPU)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"run {what} on the dask cluster at ADDRESS (tcp://host:port); "
        "needs the 'dask' extra",
    )
    where.add_argument(
        "--dask-local",
        type=positive_int,
        metavar="N",
        help=f"run {what} on a dask LocalCluster of N workers started for them; "
        "needs the 'dask' extra",
    )


@contextlib.contextmanager
def executor(scheduler: str | None = None, dask_local: int | None = None) -> Iterator[
    Executor | None
]:
    """The executor of a dask cluster at `scheduler`, or of a LocalCluster of `dask_local`
    workers, for the time of a `with` block; `None` (local processes) when neither is given.

    Raises
    ------
    SchedlibError
        If dask.distributed is not installed (naming the `dask` extra).
    """
    if scheduler is None and dask_local is None:
        yield None
        return
    try:
        import distributed
    except ImportError:
        raise SchedlibError(
            "--scheduler and --dask-local need dask.distributed, which is not installed; "
            "install the 'dask' extra: pip install '.[dask]' in schedlib's clone"
        ) from None
    client_type: Any = distributed.Client  # dask's API is untyped
    if scheduler is not None:
        with client_type(scheduler) as client:
            yield client.get_executor()
        return
    with _quiet_local_cluster(distributed.LocalCluster, dask_local) as cluster, client_type(
        cluster
    ) as client:
        yield client.get_executor()


def _quiet_local_cluster(cluster_type: Any, workers: int | None) -> Any:
    """A dask LocalCluster whose workers print nothing (their standard error is /dev/null,
    the cluster's logs say only critical faults): an interrupted grid then ends with one
    line, not the cluster's warnings and tracebacks about the tasks it cancels and the
    workers it stops. A run that fails still reaches the command as its exception
    (`RunFailedError`, one line)."""
    import logging

    saved = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(quiet, 2)  # the worker processes inherit it: their teardown prints nothing
        return cluster_type(
            n_workers=workers,
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(quiet)
