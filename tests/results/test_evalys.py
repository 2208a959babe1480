"""evalys reads our per-job CSV unmodified, plots included (when evalys is installed)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from schedlib.backfill import schedule
from schedlib.model import Cluster, Job
from schedlib.results.export import BATSIM_COLUMNS, write_record
from schedlib.results.plotting import pyplot

evalys_jobset = pytest.importorskip("evalys.jobset")
evalys_gantt = pytest.importorskip("evalys.visu.gantt")

JOBS = [Job(1, 0, 2, 100, 40), Job(2, 5, 4, 50, 50), Job(3, 6, 1, 30, 30), Job(4, 8, 3, 20, 25)]


@pytest.fixture
def csv_path(tmp_path: Path) -> Path:
    path = tmp_path / "easy.csv"
    write_record(schedule(JOBS, Cluster(4), policy="easy"), path, workload_name="small")
    return path


def test_the_header_starts_with_batsims_seventeen_columns_in_order(csv_path: Path) -> None:
    header = csv_path.read_text().splitlines()[0].split(",")
    assert header[:17] == [
        "job_id", "workload_name", "profile", "submission_time",
        "requested_number_of_resources", "requested_time", "success", "final_state",
        "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
        "stretch", "allocated_resources", "consumed_energy", "metadata",
    ]  # fmt: skip
    assert tuple(header[:17]) == BATSIM_COLUMNS


def test_evalys_loads_it_and_draws_its_gantt_chart_and_load_plots(
    csv_path: Path, tmp_path: Path
) -> None:
    plt = pyplot()
    jobset = evalys_jobset.JobSet.from_csv(str(csv_path))
    assert sorted(jobset.df["jobID"]) == ["1", "2", "3", "4"]
    assert set(jobset.df["workload_name"]) == {"small"}
    assert jobset.MaxProcs == 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Agg cannot show windows; evalys asks anyway
        evalys_gantt.plot_gantt(jobset, title="EASY")
        figure = plt.gcf()
        assert figure.axes and figure.axes[0].patches  # one rectangle per job and processor
        figure.savefig(tmp_path / "gantt.png")
        jobset.plot(with_details=True, title="EASY")
        assert len(plt.gcf().axes) == 4
        plt.gcf().savefig(tmp_path / "load.png")
    plt.close("all")
    assert (tmp_path / "gantt.png").stat().st_size > 0
