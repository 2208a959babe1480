"""Figures of long runs stay legible: a Gantt window, rolling means said, legends said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlib.cli import main
from schedlib.errors import InvalidValueError
from schedlib.place import ProcessorSet
from schedlib.results.export import write_record
from schedlib.results.plotting import (
    GANTT_WINDOW_JOBS,
    default_window,
    plot_schedule,
    plot_sweep,
    pyplot,
    rolling_mean,
)
from schedlib.results.schedules import Schedule, ScheduledJob

DAY = 86400


def long_run(jobs: int = 3000, gap: int = 3 * 3600) -> Schedule:
    """A year-like run: one job every `gap` seconds, each an hour on 1 of 4 processors."""
    return Schedule(
        tuple(
            ScheduledJob(i, i * gap, 1, 3600, i * gap + 60, i * gap + 3660, ProcessorSet([i % 4]))
            for i in range(jobs)
        ),
        4,
    )


def test_a_long_run_shows_a_legible_window_and_rolling_means_over_the_whole_run() -> None:
    run = long_run()
    figure = plot_schedule(run, capacity=4)
    gantt, utilisation, queue, _ = figure.axes
    _, high = default_window(run)
    started = [j for j in run.jobs if j.start is not None and j.start < high]
    assert len(started) == GANTT_WINDOW_JOBS
    assert len(gantt.patches) == GANTT_WINDOW_JOBS  # every job of the window, none beyond
    assert gantt.get_title().startswith(f"Gantt chart ({GANTT_WINDOW_JOBS} jobs from 0 to ")
    # the load panels cover the whole run (374 days), as rolling means whose window is said
    assert utilisation.get_title() == queue.get_title().replace("Queue length", "Utilisation")
    assert utilisation.get_title() == "Utilisation (rolling mean over 7 d)"
    assert utilisation.get_xlim()[1] == pytest.approx((run.jobs[-1].end - 0) / DAY)
    assert [p.get_label() for p in utilisation.patches] == ["the Gantt chart's window"]
    (line,) = utilisation.get_lines()
    assert max(line.get_ydata()) == pytest.approx(1 / 12, rel=0.05)  # 1 h of 3 h on 1 of 4
    pyplot().close(figure)


def test_a_short_run_keeps_its_exact_steps_and_one_window() -> None:
    run = long_run(jobs=20)
    figure = plot_schedule(run, capacity=4)
    gantt, utilisation, queue, _ = figure.axes
    assert utilisation.get_title() == "Utilisation" and queue.get_title() == "Queue length"
    assert gantt.get_xlim() == utilisation.get_xlim()
    assert not utilisation.patches  # no window to shade: the Gantt chart shows everything
    pyplot().close(figure)


def test_a_window_given_applies_to_every_time_panel() -> None:
    run = long_run()
    window = (100 * DAY, 107 * DAY)
    figure = plot_schedule(run, capacity=4, window=window)
    gantt, utilisation, queue, _ = figure.axes
    assert gantt.get_xlim() == utilisation.get_xlim() == queue.get_xlim() == (100.0, 107.0)
    inside = [j for j in run.jobs if j.start < window[1] and j.end > window[0]]  # type: ignore[operator]
    assert len(gantt.patches) == len(inside) and gantt.get_title().endswith("from 100 to 107 d)")
    pyplot().close(figure)


@given(
    st.lists(st.integers(0, 50), min_size=1, max_size=8, unique=True).map(sorted),
    st.lists(st.integers(0, 9), min_size=8, max_size=8),
    st.integers(1, 30),
)
def test_rolling_mean_is_the_mean_of_the_step_function_over_its_window(
    times: list[int], values: list[int], window: int
) -> None:
    values = values[: len(times)]

    def at(t: float) -> float:
        before = [v for s, v in zip(times, values, strict=True) if s <= t]
        return before[-1] if before else 0

    xs, ys = rolling_mean(times, values, 0, 60, window, points=13)
    for x, y in zip(xs, ys, strict=True):
        pieces = 2000  # midpoint rule, exact for a step function up to the pieces' width
        width = window / pieces
        brute = sum(at(x - window / 2 + (k + 0.5) * width) for k in range(pieces)) / pieces
        assert y == pytest.approx(brute, abs=9 * window / pieces + 1e-9)


def _write_run(tmp_path: Path) -> Path:
    from schedlib.backfill import schedule
    from schedlib.model import Cluster, Job

    jobs = [Job(i, i * 600, 1 + i % 3, 7200, 3000 + 7 * i) for i in range(1, 900)]
    path = tmp_path / "run.csv"
    write_record(schedule(jobs, Cluster(4), policy="easy"), path, workload_name="made")
    return path


def test_the_command_takes_a_window_in_the_units_shown_or_with_a_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_run(tmp_path)
    assert main(["plot", str(path), "-o", str(tmp_path / "a.png")]) == 0
    err = capsys.readouterr().err
    assert "the Gantt chart shows 0 to " in err and "choose another window with --from/--to" in err
    unit = err.split("(numbers in ")[1].split(",")[0]
    assert unit == "d"
    for argv in (["--from", "2", "--to", "3"], ["--from", "48h", "--to", "4320min"]):
        assert main(["plot", str(path), "-o", str(tmp_path / "b.png"), *argv]) == 0
        assert "shows 2 to 3 d of the run's" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--from", "40"], "error: --from = '40': after the run's end (the run lasts "),
        (["--from", "2", "--to", "1"], "error: --to = '1': must be later than --from 2"),
        (["--to", "0"], "error: --to = '0': must be > 0"),
        (["--from", "2x"], "argument --from: expected a time >= 0, a number or one with a unit"),
        (["-o", "out.txt"], "error: --output = 'out.txt': must end in .png, .pdf or .svg"),
        (["--x", "policy"], "error: --x is for a sweep's plot; "),
    ],
)
def test_bad_plot_options_name_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    path = _write_run(tmp_path)
    argv = ["plot", str(path), *(argv if "-o" in argv else [*argv, "-o", str(tmp_path / "x.png")])]
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert code == 2 and said in err and err.count("\n") == 1, err


def _sweep(tmp_path: Path, identical: bool) -> Path:
    lines = []
    for policy in ("fcfs", "easy"):
        for processors in (64, 128):
            for seed in (0, 1):
                wait = 1000 / processors + (0 if identical else seed)
                rows = [{"policy": policy, "mean_wait": wait, "utilisation": 0.5 + wait / 1e4}]
                config = {"policy": policy, "processors": processors, "seed": seed}
                lines.append(json.dumps({"configuration": config, "rows": rows}))
    path = tmp_path / "sweep.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_sweep_whose_seeds_agree_says_so_instead_of_an_empty_spread(tmp_path: Path) -> None:
    from schedlib.execution.sweep import read_sweep

    for identical, said in ((True, "the 2 seeds give identical results"),
                            (False, "mean ± one standard deviation over 2 seeds")):  # fmt: skip
        results = list(read_sweep(_sweep(tmp_path, identical)).results.values())
        figure = plot_sweep(results, x="processors")
        assert said in figure.axes[0].get_title()
        pyplot().close(figure)


def test_the_metric_error_lists_every_numeric_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _sweep(tmp_path, False)
    code = main(["plot", str(path), "--metric", "nothing", "-o", str(tmp_path / "s.png")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("schedlib: error: --metric = 'nothing': not a numeric result")
    assert "mean_wait" in err and "utilisation" in err
    code = main(["plot", str(path), "--x", "nothing", "-o", str(tmp_path / "s.png")])
    assert code == 2 and "error: --x = 'nothing': not a swept parameter" in capsys.readouterr().err


def test_a_legend_of_mixed_series_names_each_key() -> None:
    results = [({"n": n, "seed": 0}, [{"kind": "a", "wait": n}, {"wait": 2 * n}]) for n in (1, 2)]
    figure = plot_sweep(results, metrics=["wait"])
    legend = figure.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["kind=a", "wait"]
    assert not legend.get_title().get_text()
    pyplot().close(figure)


def test_sweep_errors_are_invalid_values() -> None:
    with pytest.raises(InvalidValueError, match="x = 'z'"):
        plot_sweep([({"n": 1, "seed": 0}, [{"w": 1}]), ({"n": 2, "seed": 0}, [{"w": 2}])], x="z")
