"""Plots of runs and sweeps (Agg backend): what they draw, and the commands that make them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given

from schedlib.backfill import schedule
from schedlib.cli import main
from schedlib.errors import InvalidValueError
from schedlib.model import Cluster, Job
from schedlib.place import ProcessorSet
from schedlib.results.export import write_record
from schedlib.results.plotting import load_steps, plot_runs, plot_schedule, plot_sweep, pyplot
from schedlib.results.schedules import Schedule, ScheduledJob
from schedlib.testing.strategies.backfill import parallel_instances

JOBS = [Job(1, 0, 2, 100, 40), Job(2, 5, 4, 50, 50), Job(3, 6, 1, 30, 30), Job(4, 8, 3, 20, 25)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _labelled(figure: object) -> None:
    for ax in figure.axes:  # type: ignore[attr-defined]
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
        assert ax.get_legend() is not None, ax.get_title()


def test_a_run_has_gantt_load_queue_and_wait_cdf_all_labelled() -> None:
    record = schedule(JOBS, Cluster(4), policy="easy")
    figure = plot_schedule(Schedule.from_record(record), capacity=4, title="EASY")
    assert [ax.get_title() for ax in figure.axes] == [
        "Gantt chart (4 jobs)", "Utilisation", "Queue length", "Wait times",
    ]  # fmt: skip
    _labelled(figure)
    assert "(s)" in figure.axes[0].get_xlabel() and "(s)" in figure.axes[3].get_xlabel()
    gantt = figure.axes[0]
    assert len(gantt.patches) == 4  # one rectangle per job (contiguous processors)
    assert sorted((p.get_x(), p.get_width(), p.get_height()) for p in gantt.patches) == sorted(
        (o.start, o.end - o.start, o.procs) for o in record.outcomes
    )
    pyplot().close(figure)


def test_the_gantt_chart_is_capped_and_says_so() -> None:
    jobs = tuple(ScheduledJob(i, 0, 1, 10, i, i + 1, ProcessorSet("0")) for i in range(30))
    figure = plot_schedule(Schedule(jobs), capacity=1, gantt_limit=10)
    assert figure.axes[0].get_title() == "Gantt chart (30 jobs, the first 10 to start: until 9 s)"
    assert len(figure.axes[0].patches) == 10
    pyplot().close(figure)


def test_several_runs_share_axes_with_one_line_each() -> None:
    runs = {p: Schedule.from_record(schedule(JOBS, Cluster(4), policy=p)) for p in ("fcfs", "easy")}
    figure = plot_runs(runs, capacity=4, title="compare")
    _labelled(figure)
    assert [len(ax.get_lines()) for ax in figure.axes] == [2, 2, 2]
    pyplot().close(figure)


@given(parallel_instances(max_processors=6, max_jobs=10))
def test_load_steps_count_running_processors_and_waiting_jobs(
    instance: tuple[Cluster, list[Job]],
) -> None:
    cluster, jobs = instance
    run_ = Schedule.from_record(schedule(jobs, cluster, policy="easy"))
    times, busy, queued = load_steps(run_)
    assert times == sorted(set(times))
    for t, b, q in zip(times, busy, queued, strict=True):
        ran = [j for j in run_.jobs if j.start is not None]
        assert b == sum(j.procs for j in ran if j.start <= t < j.end)  # type: ignore[operator]
        assert q == sum(1 for j in ran if j.submit <= t < j.start)  # type: ignore[operator]
        assert 0 <= b <= cluster.processors


def _sweep_file(path: Path) -> Path:
    lines = []
    for processors in (64, 128):
        for policy in ("fcfs", "easy"):
            for seed in (0, 1, 2):
                config = {"policy": policy, "processors": processors, "seed": seed}
                wait = (1000 if policy == "fcfs" else 400) * 128 / processors + 10 * seed
                rows = [{"policy": policy, "mean_wait": wait, "utilisation": 0.5}]
                lines.append(json.dumps({"configuration": config, "rows": rows}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_sweep_gives_one_line_per_policy_with_error_bars_over_seeds() -> None:
    results = [
        ({"policy": p, "processors": n, "seed": s}, [{"mean_wait": w + 10 * s}])
        for p, n, w in (("fcfs", 64, 2000), ("fcfs", 128, 1000), ("easy", 64, 800))
        for s in (0, 1, 2)
    ]
    figure = plot_sweep(results, units={"mean_wait": "s"})
    ax = figure.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("processors", "mean_wait (s)")
    assert "over 3 seeds" in ax.get_title()
    legend = ax.get_legend()  # the key once, in the title; each entry its value
    assert legend.get_title().get_text() == "policy"
    assert [t.get_text() for t in legend.get_texts()] == ["fcfs", "easy"]
    fcfs, easy = ax.containers  # one errorbar container per line
    assert list(fcfs.lines[0].get_xdata()) == [64, 128]
    assert list(fcfs.lines[0].get_ydata()) == [2010, 1010]
    assert list(easy.lines[0].get_ydata()) == [810]
    caps = fcfs.lines[2][0].get_segments()  # the error bars: +- one standard deviation (10)
    assert [round(seg[1][1] - seg[0][1], 6) for seg in caps] == [20, 20]
    pyplot().close(figure)


def test_rows_of_one_run_are_separate_series_and_never_shadow_the_grid() -> None:
    """A reproduction returns several rows per run (a scheduler x scenario each), and a row
    may carry a field named like a grid key (here `runs`): one line per (other grid keys,
    labels), the spread over seeds only, and the grid's `runs` read from the configuration."""
    results = [
        (
            {"runs": runs, "queue_length": q, "seed": s},
            [
                {"scheduler": k, "scenario": c, "runs": 99, "minutes": base + q + 10 * c + s}
                for k, base in (("pgs", 100), ("fcfs", 200))
                for c in (0, 1)
            ],
        )
        for runs in (1, 2)
        for q in (1, 2, 3)
        for s in (0, 1)
    ]
    figure = plot_sweep(results, x="queue_length", metrics=["minutes"])
    ax = figure.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert ax.get_legend().get_title().get_text() == "runs, scheduler, scenario"
    assert len(labels) == 2 * 2 * 2 and "1, pgs, 0" in labels
    for line in ax.containers:
        caps = line.lines[2][0].get_segments()
        assert all(round(seg[1][1] - seg[0][1], 6) == round(2 * 0.5**0.5, 6) for seg in caps)
    pyplot().close(figure)
    with pytest.raises(InvalidValueError, match="x = 'seed': not a swept parameter"):
        plot_sweep(results, x="seed")
    with pytest.raises(InvalidValueError, match="metric = 'scheduler': not a numeric result"):
        plot_sweep(results, metrics=["scheduler"])
    default = plot_sweep(results)  # the first numeric swept parameter, the first measure
    assert (default.axes[0].get_xlabel(), default.axes[0].get_ylabel()) == ("runs", "minutes")
    assert {tuple(c.lines[0].get_xdata()) for c in default.axes[0].containers} == {(1, 2)}
    pyplot().close(default)


def test_a_sweep_of_seeds_only_is_refused_with_a_reason() -> None:
    results = [({"policy": "easy", "seed": s}, [{"mean_wait": 10 + s}]) for s in range(3)]
    with pytest.raises(InvalidValueError, match=r"only the seed varies.*nothing to put on"):
        plot_sweep(results)


def test_plot_command_on_a_run_csv_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = schedule(JOBS, Cluster(4), policy="easy")
    write_record(record, tmp_path / "run.csv")
    write_record(record, tmp_path / "run.json")
    code, out, err = run(capsys, "plot", str(tmp_path / "run.csv"), "--processors", "4")
    assert code == 0 and out.strip() == str(tmp_path / "run.png") and err == ""
    assert (tmp_path / "run.png").read_bytes()[:4] == b"\x89PNG"
    target = tmp_path / "fig.svg"
    code, out, err = run(capsys, "plot", str(tmp_path / "run.json"), "-o", str(target))
    assert code == 0 and err == "" and target.read_text().startswith("<?xml")
    code, _, err = run(capsys, "plot", str(tmp_path / "run.csv"))  # our CSV says its size
    assert code == 0 and err == ""
    foreign = tmp_path / "batsim.csv"  # another scheduler's: no metadata
    foreign.write_text(
        "job_id,submission_time,requested_number_of_resources,starting_time,finish_time,"
        "allocated_resources\n1,0,2,0,10,0-1\n2,1,4,10,20,0-3\n"
    )
    code, _, err = run(capsys, "plot", str(foreign))
    assert code == 0 and "assumed 4 processors" in err


def test_plot_command_on_a_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sweep_file(tmp_path / "sweep.jsonl")
    code, out, _ = run(
        capsys, "plot", str(path), "--metric", "mean_wait", "--metric", "utilisation"
    )
    assert code == 0 and Path(out.strip()).is_file()
    code, _, err = run(capsys, "plot", str(path), "--x", "colour")
    assert code == 2 and "x = 'colour': not a swept parameter of the sweep" in err
    code, _, err = run(capsys, "plot", str(path), "--metric", "policy")
    assert code == 2 and "metric = 'policy'" in err


def test_without_matplotlib_plot_and_plot_options_fail_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    missing = str(tmp_path / "missing.csv")
    for argv in (
        ["plot", missing],
        ["run", "--workload", missing, "--plot", "x.png"],
        ["compare", "--workload", missing, "--plot", "x.png"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert err == (
            "schedlib: error: plotting needs matplotlib, which is not installed; "
            "install the 'plot' extra: pip install '.[plot]' in schedlib's clone\n"
        )


def test_run_and_compare_draw_their_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("run", "compare"):
        target = tmp_path / f"{command}.png"
        code, _, err = run(capsys, command, "--limit", "60", "--plot", str(target))
        assert code == 0 and f"plot written to {target}" in err
        assert target.stat().st_size > 0
    code, _, err = run(capsys, "run", "--limit", "60", "--plot", str(tmp_path / "x.jpg"))
    assert code == 2 and "must end in .png, .pdf or .svg" in err and "records" not in err


def test_a_run_figure_names_its_time_origin_unit_window_and_run() -> None:
    """Times from the first submission, in hours for a day-long run; the Gantt chart and the
    load panels share one window; the title names the policy, workload and machine; the wait
    CDF may be drawn on a log axis."""
    jobs = [Job(i, 1000 + 600 * i, 1 + i % 4, 7200, 3600 + 60 * i) for i in range(1, 80)]
    record = schedule(jobs, Cluster(4), policy="easy")
    table = Schedule.from_record(record, "run.csv")
    table = Schedule(table.jobs, 4, "run.csv", "easy", "my-trace")
    figure = plot_schedule(table, capacity=4, gantt_limit=20, log_wait=True)
    gantt, utilisation, queue, waits = figure.axes
    assert figure._suptitle.get_text() == "easy on my-trace, 4 processors"
    assert gantt.get_xlabel() == "time since the first submission, t=1600 s (h)"
    assert utilisation.get_xlabel() == queue.get_xlabel() == gantt.get_xlabel()
    assert gantt.get_xlim() == utilisation.get_xlim() == queue.get_xlim()  # one window
    assert gantt.get_title().startswith("Gantt chart (79 jobs, the first 20 to start: until ")
    first = min(p.get_x() for p in gantt.patches)
    assert first == (min(o.start for o in record.outcomes) - 1600) / 3600
    assert waits.get_xscale() == "symlog" and waits.get_xlabel() == "wait (h)"
    pyplot().close(figure)
