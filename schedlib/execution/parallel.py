"""Run independent simulations on several cores or machines, deterministically.

Reproductions and sweeps run many independent simulations.
[`run_all`][schedlib.execution.parallel.run_all] submits them to any
`concurrent.futures.Executor` — local processes by default, a dask.distributed
cluster's executor, or this process — reports each result as it completes, and
returns the results **in input order**, so the output never depends on the
executor or the number of workers. A run that raises is reported as a
[`RunFailedError`][schedlib.execution.parallel.RunFailedError] naming its
input (the configuration and seed), not as a bare traceback from a worker.
[`parallel_map`][schedlib.execution.parallel.parallel_map] is its plain form.

Examples
--------
>>> parallel_map(abs, [-1, 2, -3], workers=1)
[1, 2, 3]
>>> parallel_map(abs, ["x"], workers=1)
Traceback (most recent call last):
...
schedlib.execution.parallel.RunFailedError: the run of 'x' failed: TypeError: bad operand ...
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any, Generic, TypeVar

from schedlib.errors import SchedlibError
from schedlib.validation import require

__all__ = ["RunFailedError", "default_workers", "parallel_map", "run_all"]

T = TypeVar("T")
R = TypeVar("R")


class RunFailedError(SchedlibError):
    """One run of a batch raised: names its input and what went wrong.

    Parameters
    ----------
    item
        A description of the run's input (its configuration and seed).
    cause
        The exception's type name.
    message
        The exception's message.
    user_error
        Whether the cause was a [`SchedlibError`][schedlib.errors.SchedlibError]
        (bad input: the command line exits 2) rather than a bug (exit 1).
    """

    def __init__(self, item: str, cause: str, message: str, user_error: bool = False) -> None:
        self.item = item
        self.cause = cause
        self.message = message
        self.user_error = user_error
        super().__init__(f"the run of {item} failed: {cause}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across processes
        return (RunFailedError, (self.item, self.cause, self.message, self.user_error))


class _Call(Generic[T, R]):
    """`function(item)`, with a failure reported as a `RunFailedError` naming `item`."""

    def __init__(self, function: Callable[[T], R]) -> None:
        self.function = function

    def __call__(self, item: T) -> R:
        try:
            return self.function(item)
        except RunFailedError:
            raise
        except Exception as error:
            raise RunFailedError(
                _describe(item), type(error).__name__, str(error), isinstance(error, SchedlibError)
            ) from None


def _died(todo: list[Any], futures: dict[Future[Any], int], error: BaseException) -> RunFailedError:
    """A worker process died outright: name the runs it may have held (those not finished)."""
    lost = sorted(
        i for f, i in futures.items() if f.done() and isinstance(f.exception(), type(error))
    )
    shown = ", ".join(_describe(todo[i]) for i in lost[:10])
    more = f" (and {len(lost) - 10} more)" if len(lost) > 10 else ""
    return RunFailedError(
        shown + more,
        type(error).__name__,
        "a worker process died (killed by a signal, crashed or out of memory) "
        "while running one of these runs",
    )


def _describe(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 300 else text[:297] + "..."


def default_workers() -> int:
    """The number of CPUs this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_all(
    function: Callable[[T], R],
    items: Iterable[T],
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    on_result: Callable[[int, R], None] | None = None,
) -> list[R]:
    """`[function(x) for x in items]`, computed by an executor, results in input order.

    Parameters
    ----------
    function
        A picklable (module-level) pure function.
    items
        Its arguments (picklable).
    executor
        Where to run: any `concurrent.futures.Executor` (e.g. a dask
        `Client.get_executor()`); the caller owns it. `None`: local processes
        (`workers` of them), or this process when `workers` is 1.
    workers
        Processes of the local pool; `None` means every available CPU.
    on_result
        Called with `(index, result)` as each run completes, in completion
        order (to write it out or draw progress).

    Returns
    -------
    list
        The results, in the order of `items`.

    Raises
    ------
    RunFailedError
        For the first run (in completion order) that raised, naming its input.
    InvalidValueError
        If `workers < 1`.

    Notes
    -----
    Every run is a pure function of its input, so where and in which order
    the runs happen cannot change a result; only `on_result` sees the
    completion order.

    Ctrl-C (SIGINT to the whole process group) stops a local pool cleanly:
    the workers ignore it, and the caller's `KeyboardInterrupt` ends them and
    drops the runs not started. A failing run also ends the others at once.
    """
    todo = list(items)
    call = _Call(function)
    if executor is not None:
        return _collect(_submit(executor, call, todo), todo, on_result, cancel=True)
    count = default_workers() if workers is None else require(workers, "workers", at_least=1)
    if count == 1 or len(todo) <= 1:
        results: list[Any] = []
        for index, item in enumerate(todo):
            results.append(call(item))
            if on_result is not None:
                on_result(index, results[index])
        return results
    pool = ProcessPoolExecutor(max_workers=min(count, len(todo)), initializer=_ignore_ctrl_c)
    try:
        with _ctrl_c_deferred():  # the workers start here: none may see Ctrl-C before ignoring it
            futures = _submit(pool, call, todo)
        results = _collect(futures, todo, on_result, cancel=False)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()
    return results


def _submit(executor: Executor, call: _Call[T, R], todo: list[T]) -> dict[Future[R], int]:
    return {executor.submit(call, item): i for i, item in enumerate(todo)}


def _collect(
    futures: dict[Future[R], int],
    todo: list[Any],
    on_result: Callable[[int, R], None] | None,
    *,
    cancel: bool,
) -> list[R]:
    """The results in input order, reporting each as it completes; on error, `cancel` the rest.

    A local pool is not cancelled future by future but stopped as a whole
    (`_stop`): cancelling futures its manager thread is about to fail raises
    `InvalidStateError` in that thread (Python 3.11).
    """
    results: list[Any] = [None] * len(todo)
    try:
        for future in as_completed(futures):
            index = futures[future]
            try:
                results[index] = future.result()
            except BrokenExecutor as error:
                raise _died(todo, futures, error) from None
            if on_result is not None:
                on_result(index, results[index])
    except BaseException:
        if cancel:
            for future in futures:
                future.cancel()
        raise
    return results


def _ignore_ctrl_c() -> None:
    """Worker initializer: Ctrl-C reaches the whole process group; the parent handles it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Hold Ctrl-C back while worker processes start (they inherit the blocked signal)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not (
        threading.main_thread()
    ):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


_MANAGER_GRACE = 10.0
"""Seconds a stopped pool's manager thread is given to clean up (it needs far less)."""


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a local pool at once: end the workers (the pool then fails the runs left)."""
    # no public handle on the workers before Python 3.14 (`terminate_workers`)
    for worker in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError):
            worker.terminate()
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False)
    # Let the pool's manager thread see its workers gone and close its wake-up pipe before
    # we go on: at the interpreter's exit, Python 3.11 wakes every live manager thread
    # through that pipe without a lock, and one closing it at that moment prints "Exception
    # ignored in: <module 'threading'> ... Bad file descriptor" after "interrupted".
    if manager is not None:
        manager.join(timeout=_MANAGER_GRACE)


def parallel_map(
    function: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
) -> list[R]:
    """`[function(x) for x in items]`, computed by `workers` local processes.

    The plain form of [`run_all`][schedlib.execution.parallel.run_all].

    Parameters
    ----------
    function
        A picklable (module-level) pure function.
    items
        Its arguments (picklable).
    workers
        Number of processes; `None` means every available CPU; `1` runs in
        this process (no pickling, easiest to debug).

    Returns
    -------
    list
        The results, in the order of `items`.

    Raises
    ------
    RunFailedError
        If a run raises, naming its input.
    """
    return run_all(function, items, workers=workers)
