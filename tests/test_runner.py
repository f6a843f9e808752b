"""The resumable task runner (issue 7, item 5): a run killed and rerun holds every task exactly
once and the same bytes as an uninterrupted run; 1 worker, 2 workers (fork, spawn) and Ray give
identical files; a failing task is an error row; another run's files, an unwritable folder and a
full disk are refused with clear errors and never leave a partial row.

The task functions are in ``runner_tasks`` (importable by worker processes); each row depends only
on its task's index (``runner_tasks.expected_row``), so the expected results do not come from the
runner itself.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import runner_tasks
from runner_tasks import (
    COLUMNS,
    TYPED_COLUMNS,
    compute,
    compute_chunk,
    expected_row,
    keys_and_payloads,
)
from steerlab import runner
from steerlab.runner import (
    MANIFEST_FILE,
    PARQUET_FILE,
    RESULTS_FILE,
    Task,
    read_results,
    run_tasks,
)

TESTS = Path(__file__).parent
MANIFEST = {"suite": "unit", "suite_sha256": "abc123", "steerlab_version": "0.1.0"}
COUNT = 12


def run(out, tasks=None, function=compute, **options):
    options.setdefault("columns", COLUMNS)
    options.setdefault("manifest", MANIFEST)
    options.setdefault("workers", 1)
    options.setdefault("progress", False)
    return run_tasks(keys_and_payloads(COUNT) if tasks is None else tasks, function, out, **options)


def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    return a == b and type(a) is type(b)


def assert_rows_expected(rows, indices):
    assert [row["index"] for row in rows] == list(indices)
    for row in rows:
        expected = expected_row(row["index"])
        expected["label"] = expected["label"] or None  # "" and None are both an empty field
        assert row["error"] is None
        for name, value in expected.items():
            assert same_value(row[name], value), (name, row[name], value)


def csv_lines(out):
    return (Path(out) / RESULTS_FILE).read_text().splitlines()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run on one worker, in this process."""
    out = tmp_path_factory.mktemp("reference")
    run(out)
    return out


# --------------------------------------------------------------------------------------------------
# the files of a complete run


def test_a_complete_run_writes_every_row_in_task_order_with_exact_values(reference):
    rows = read_results(reference)
    assert_rows_expected(rows, range(COUNT))
    lines = csv_lines(reference)
    assert lines[0] == ",".join([*COLUMNS, "error"])
    assert len(lines) == COUNT + 1
    record = json.loads((reference / MANIFEST_FILE).read_text())
    assert record["manifest"] == MANIFEST
    assert record["columns"] == [*COLUMNS, "error"]


def test_the_returned_rows_are_what_read_results_reads(tmp_path):
    returned = run(tmp_path)
    read = read_results(tmp_path)
    assert len(returned) == len(read) == COUNT
    for a, b in zip(returned, read, strict=True):
        assert all(same_value(a[name], b[name]) for name in a)


def test_a_function_that_omits_the_key_fields_gives_the_same_file(tmp_path, reference):
    run(tmp_path, function=runner_tasks.compute_values_only)
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


def test_parquet_holds_the_same_rows_and_types(reference):
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(reference / PARQUET_FILE)
    assert table.column_names == [*COLUMNS, "error"]
    assert str(table.schema.field("value").type) == "double"
    assert str(table.schema.field("count").type) == "int64"
    assert str(table.schema.field("flag").type) == "bool"
    from_parquet = table.to_pylist()
    for a, b in zip(from_parquet, read_results(reference), strict=True):
        assert all(same_value(a[name], b[name]) for name in a)
    metadata = json.loads(table.schema.metadata[b"steerlab.run"])
    assert metadata["manifest"] == MANIFEST


def test_typed_columns_read_back_with_their_types_even_when_text_looks_like_a_number(tmp_path):
    tasks = [Task(("7", index), index) for index in range(3)]
    columns = {"group": str, "index": int, "label": "str", "value": float}

    def label_and_value(index):
        return {"label": str(10 + index), "value": index}  # ints into a float column

    rows = run_tasks(
        tasks, label_and_value, tmp_path, columns=columns, manifest={}, workers=1, progress=False
    )
    assert [row["group"] for row in rows] == ["7", "7", "7"]
    assert [row["label"] for row in rows] == ["10", "11", "12"]
    assert [type(row["value"]) for row in rows] == [float, float, float]
    # untyped, the same text would be read as int (the documented inference)
    assert csv_lines(tmp_path)[1] == "7,0,10,0.0,"


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_survives_the_csv_round_trip_bit_for_bit(value):
    text = runner._format_value(value, None, "x")
    back = runner._parse_value(text, runner._infer_kind([text, "0.5"]))
    assert same_value(back, value)


@given(st.integers(min_value=-(2**80), max_value=2**80))
def test_an_int_survives_the_csv_round_trip(value):
    text = runner._format_value(value, None, "x")
    assert runner._parse_value(text, runner._infer_kind([text])) == value


# --------------------------------------------------------------------------------------------------
# determinism: 1 worker, 2 workers, Ray


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_two_workers_give_the_same_bytes_as_one(tmp_path, reference, start_method):
    run(tmp_path, workers=2, start_method=start_method)
    for name in (RESULTS_FILE, MANIFEST_FILE):
        assert (tmp_path / name).read_bytes() == (reference / name).read_bytes()
    if (reference / PARQUET_FILE).exists():  # pyarrow installed
        assert (tmp_path / PARQUET_FILE).read_bytes() == (reference / PARQUET_FILE).read_bytes()


def test_a_two_worker_local_ray_run_gives_the_same_bytes(tmp_path, reference):
    ray = pytest.importorskip("ray")
    running_before = ray.is_initialized()
    run(tmp_path, workers=2, ray=True)
    assert ray.is_initialized() == running_before  # a Ray the runner started is shut down
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


def test_a_chunked_local_ray_run_gives_the_same_bytes(tmp_path, reference):
    # the batched runs (Table I v2's gate and trials, tuning) send chunks to Ray the same way
    ray = pytest.importorskip("ray")
    running_before = ray.is_initialized()
    run(tmp_path, function=compute_chunk, chunk=5, workers=2, ray=True)
    assert ray.is_initialized() == running_before
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


@pytest.mark.parametrize("chunk", [1, 5, 100])
@pytest.mark.parametrize("workers", [1, 2])
def test_chunked_calls_give_the_same_bytes_as_one_task_per_call(
    tmp_path, reference, chunk, workers
):
    calls = []

    def counted(payloads):
        calls.append(len(payloads))
        return compute_chunk(payloads)

    function = counted if workers == 1 else compute_chunk
    run(tmp_path, function=function, chunk=chunk, workers=workers)
    for name in (RESULTS_FILE, MANIFEST_FILE):
        assert (tmp_path / name).read_bytes() == (reference / name).read_bytes()
    if workers == 1:  # chunks of the asked size, in task order, the last one the rest
        sizes = [min(chunk, COUNT - start) for start in range(0, COUNT, chunk)]
        assert calls == sizes


def test_a_chunk_that_raises_is_each_of_its_tasks_error_row_and_the_rest_are_fine(tmp_path):
    tasks = keys_and_payloads(COUNT, fail_chunk=[6], bad=[1])
    rows = run(tmp_path, tasks=tasks, function=compute_chunk, chunk=4)
    failed = [row["index"] for row in rows if row["error"]]
    assert failed == [1, 4, 5, 6, 7]  # index 1: its own bad row; 4-7: the chunk holding 6
    assert "FloatingPointError: the batch diverged" in rows[5]["error"]
    assert "count" in rows[1]["error"]
    assert_rows_expected([row for row in rows if not row["error"]], [0, 2, 3, 8, 9, 10, 11])


def test_a_chunk_resumes_only_the_missing_tasks(tmp_path, reference):
    """A rerun calls the chunk function with the tasks the file lacks only (here the error rows
    of two failed chunks, retried)."""
    run(tmp_path, tasks=keys_and_payloads(COUNT, fail=[2, 9]), function=compute_chunk, chunk=4)
    seen = []

    def counted(payloads):
        seen.extend(payload["index"] for payload in payloads)
        return compute_chunk(payloads)

    run(tmp_path, function=counted, chunk=4, retry_errors=True)
    assert seen == [0, 1, 2, 3, 8, 9, 10, 11]
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


# --------------------------------------------------------------------------------------------------
# resume


def child_processes(pid):
    """Process ids whose parent is ``pid`` (Linux ``/proc``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_run_killed_with_sigkill_resumes_with_every_task_exactly_once(tmp_path, reference):
    """The run's process (a 2-worker pool) is killed with SIGKILL once ``kill_after`` rows are in
    the file; its workers, left alone, must exit by themselves; the rerun runs exactly the tasks
    missing from the file."""
    out = tmp_path / "run"
    log = tmp_path / "started.log"  # every start of a task appends its index
    count, kill_after = 40, 5
    code = (
        "from runner_tasks import COLUMNS, compute, keys_and_payloads\n"
        "from steerlab.runner import run_tasks\n"
        f"run_tasks(keys_and_payloads({count}, delay=0.1, log={str(log)!r}), compute, "
        f"{str(out)!r}, columns=COLUMNS, manifest={MANIFEST!r}, workers=2, progress=False)\n"
    )
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), *sys.path]))
    process = subprocess.Popen(
        [sys.executable, "-c", code], env=environment, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline and process.poll() is None:
            path = out / RESULTS_FILE
            if path.exists() and path.read_bytes().count(b"\n") >= 1 + kill_after:
                break
            time.sleep(0.01)
        assert process.poll() is None, "the run ended before it could be killed"
        workers = child_processes(process.pid)
        assert len(workers) == 2
        process.kill()  # SIGKILL, to the run's process only
        process.wait()
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.05)
        assert not any(alive(pid) for pid in workers), "orphaned workers kept running"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left of the run
    data = (out / RESULTS_FILE).read_bytes()
    assert data.endswith(b"\n")
    written = {int(line.split(",")[1]) for line in data.decode().splitlines()[1:]}
    assert kill_after <= len(written) < count
    started_before = log.read_text().splitlines()

    run(out, tasks=keys_and_payloads(count, log=str(log)), workers=2)

    started_again = log.read_text().splitlines()[len(started_before) :]
    assert sorted(map(int, started_again)) == sorted(set(range(count)) - written)
    rows = read_results(out)
    assert_rows_expected(rows, range(count))
    uninterrupted = tmp_path / "uninterrupted"
    run(uninterrupted, tasks=keys_and_payloads(count))
    assert (out / RESULTS_FILE).read_bytes() == (uninterrupted / RESULTS_FILE).read_bytes()
    assert (out / MANIFEST_FILE).read_bytes() == (uninterrupted / MANIFEST_FILE).read_bytes()


@pytest.mark.parametrize("cut", ["inside a row", "before its line break"])
def test_a_partial_last_line_is_cut_off_and_its_task_rerun(tmp_path, reference, cut):
    out = tmp_path / "run"
    out.mkdir()
    (out / MANIFEST_FILE).write_bytes((reference / MANIFEST_FILE).read_bytes())
    lines = (reference / RESULTS_FILE).read_bytes().splitlines(keepends=True)
    # an interrupted file: rows in completion order (not task order), then a row cut short
    finished = [lines[1 + i] for i in (4, 0, 7, 2)]
    partial = lines[1 + 9][: len(lines[1 + 9]) // 2 if cut == "inside a row" else -1]
    (out / RESULTS_FILE).write_bytes(lines[0] + b"".join(finished) + partial)
    assert [row["index"] for row in read_results(out)] == [4, 0, 7, 2]  # the partial line ignored
    log = tmp_path / "started.log"
    run(out, tasks=keys_and_payloads(COUNT, log=str(log)))
    assert sorted(map(int, log.read_text().split())) == sorted(set(range(COUNT)) - {4, 0, 7, 2})
    assert (out / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


def test_a_rerun_of_a_complete_run_runs_nothing_and_changes_nothing(tmp_path):
    run(tmp_path)
    before = (tmp_path / RESULTS_FILE).read_bytes()
    log = tmp_path / "started.log"
    rows = run(tmp_path, tasks=keys_and_payloads(COUNT, log=str(log)))
    assert not log.exists()
    assert (tmp_path / RESULTS_FILE).read_bytes() == before
    assert_rows_expected(rows, range(COUNT))


# --------------------------------------------------------------------------------------------------
# failing tasks


def test_a_raising_task_is_an_error_row_and_the_other_rows_are_fine(tmp_path, reference):
    rows = run(tmp_path, tasks=keys_and_payloads(COUNT, fail=(3, 8)))
    failed = [row for row in rows if row["error"] is not None]
    assert [row["index"] for row in failed] == [3, 8]
    for row in failed:
        assert row["error"] == (
            f"FloatingPointError: simulation diverged at index {row['index']} / state is NaN"
        )
        assert all(row[name] is None for name in COLUMNS[2:])
        assert row["group"] == "g" + str(row["index"] % 3)
    good = [row for row in rows if row["error"] is None]
    assert_rows_expected(good, [i for i in range(COUNT) if i not in (3, 8)])
    reference_lines = csv_lines(reference)
    for number, line in enumerate(csv_lines(tmp_path)):
        if number - 1 not in (3, 8):
            assert line == reference_lines[number]


def test_rows_that_break_the_rules_are_error_rows_naming_the_problem(tmp_path):
    rows = run(
        tmp_path, tasks=keys_and_payloads(8), function=runner_tasks.bad_rows, columns=TYPED_COLUMNS
    )
    errors = [row["error"] for row in rows]
    assert errors[0] == "TypeError: the task function returned list, not a dict"
    assert "count" in errors[1] and "no value" in errors[1]
    assert "surplus" in errors[2]
    assert "'count'" in errors[3] and "int" in errors[3]
    assert "'label'" in errors[4] and "line break" in errors[4]
    assert "'index'" in errors[5] and "99" in errors[5]
    assert "'spare'" in errors[6] and "list" in errors[6]
    assert errors[7] is None


def test_retry_errors_reruns_only_the_failed_tasks(tmp_path, reference):
    marker = tmp_path / "broken"
    marker.touch()
    tasks = keys_and_payloads(COUNT, fail_while=str(marker))
    rows = run(tmp_path / "run", tasks=tasks)
    assert all(row["error"] == "RuntimeError: transient failure" for row in rows)
    marker.unlink()
    rows = run(tmp_path / "run", tasks=tasks)  # an error row counts as done
    assert all(row["error"] is not None for row in rows)
    run(tmp_path / "run", tasks=tasks, retry_errors=True)
    assert (tmp_path / "run" / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


# --------------------------------------------------------------------------------------------------
# another run's files are refused


def snapshot(out):
    return {path.name: path.read_bytes() for path in Path(out).iterdir()}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"manifest": {**MANIFEST, "suite_sha256": "def456"}}, "suite_sha256: stored 'abc123'"),
        ({"manifest": {**MANIFEST, "steerlab_version": "0.2.0"}}, "steerlab_version"),
        ({"columns": COLUMNS[:-1]}, "columns"),
        ({"columns": TYPED_COLUMNS}, "types"),
        ({"tasks": keys_and_payloads(COUNT + 1)}, "tasks: stored 12, now 13"),
    ],
)
def test_a_rerun_that_is_another_run_is_refused_and_changes_nothing(tmp_path, change, expected):
    run(tmp_path, tasks=keys_and_payloads(COUNT, fail=(2,)))
    before = snapshot(tmp_path)
    log = tmp_path.parent / "started.log"
    options = {"tasks": keys_and_payloads(COUNT, log=str(log)), **change}
    if "tasks" in change:
        options["tasks"] = keys_and_payloads(COUNT + 1, log=str(log))
    with pytest.raises(ValueError, match="holds another run") as info:
        run(tmp_path, **options)
    assert expected in str(info.value)
    assert str(tmp_path) in str(info.value)
    assert snapshot(tmp_path) == before
    assert not log.exists()


def write_folder(out, reference, results: bytes):
    out.mkdir()
    (out / MANIFEST_FILE).write_bytes((reference / MANIFEST_FILE).read_bytes())
    (out / RESULTS_FILE).write_bytes(results)


def test_results_without_run_json_are_refused(tmp_path, reference):
    (tmp_path / RESULTS_FILE).write_bytes((reference / RESULTS_FILE).read_bytes())
    with pytest.raises(ValueError, match=r"without run\.json"):
        run(tmp_path)


def test_results_with_another_header_are_refused(tmp_path, reference):
    lines = (reference / RESULTS_FILE).read_bytes().splitlines(keepends=True)
    write_folder(tmp_path / "out", reference, lines[0].replace(b"spare", b"other") + lines[1])
    with pytest.raises(ValueError, match="header"):
        run(tmp_path / "out")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda line: line.replace(b"g1,4,", b"g1,99,", 1), "not in this run's task list"),
        (lambda line: line.replace(b"g1,4,", b"g1,4,,", 1), "fields where the header has"),
        (lambda line: line + line, "twice"),
        (lambda line: line[:-1] + b"\xff\n", "not UTF-8"),
    ],
)
def test_results_with_foreign_rows_are_refused(tmp_path, reference, edit, expected):
    lines = (reference / RESULTS_FILE).read_bytes().splitlines(keepends=True)
    write_folder(tmp_path / "out", reference, lines[0] + lines[1] + edit(lines[5]))
    before = snapshot(tmp_path / "out")
    with pytest.raises(ValueError, match=expected):
        run(tmp_path / "out")
    assert snapshot(tmp_path / "out") == before


def _hold_folder(folder, holding, release) -> None:
    with runner._folder_lock(Path(folder)):  # as a running run holds it
        holding.set()
        release.wait(timeout=300)


def test_a_second_run_on_a_folder_in_use_is_refused(tmp_path):
    """Another process holds the folder's lock (by another path to the same folder): refused;
    once it lets go, the run runs."""
    context = multiprocessing.get_context("spawn")
    holding, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_folder, args=(str(tmp_path), holding, release))
    holder.start()
    try:
        assert holding.wait(timeout=300)
        with pytest.raises(RuntimeError, match="another run is writing"):
            run(tmp_path / ".." / tmp_path.name)
    finally:
        release.set()
        holder.join(timeout=300)
    run(tmp_path)  # released: runs


# --------------------------------------------------------------------------------------------------
# unwritable folder, full disk


def test_an_output_folder_under_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        run(tmp_path / "file")
    with pytest.raises(OSError, match="cannot create the output folder") as info:
        run(tmp_path / "file" / "out")
    assert str(tmp_path / "file" / "out") in str(info.value)


def test_an_unwritable_output_folder_is_a_clear_permission_error():
    """The run happens in a forked child without write permission (as an ordinary user when the
    tests run as root, whom permissions do not stop)."""
    with tempfile.TemporaryDirectory() as base:
        os.chmod(base, 0o755)  # an ordinary user may enter it, not write in it
        parent = Path(base) / "read_only"
        parent.mkdir(mode=0o555)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report each error's type and message, one line each
            try:
                os.close(read)
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                report = []
                for out in (parent / "new", parent):
                    try:
                        run(out)
                        report.append("no error")
                    except Exception as error:
                        report.append(f"{type(error).__name__}|{error}")
                os.write(write, "\n".join(report).encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            report = pipe.read().splitlines()
        os.waitpid(pid, 0)
        assert len(report) == 2
        kind, message = report[0].split("|")
        assert kind == "PermissionError"
        assert f"cannot create the output folder {parent / 'new'}: Permission denied" in message
        kind, message = report[1].split("|")
        assert kind == "PermissionError"
        assert f"the output folder {parent} is not writable" in message
        assert list(parent.iterdir()) == []


class FullDisk:
    """``os.write`` that writes half of the ``after``-th write of a row (a line starting with
    ``g``, not the header; any write if not ``rows_only``) and then fails with ENOSPC, as a disk
    filling up mid-row."""

    def __init__(self, after, rows_only=True):
        self.after = after
        self.rows_only = rows_only
        self.seen = 0
        self.full = False

    def __call__(self, fd, data):
        data = bytes(data)
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        if not self.rows_only or (data.startswith(b"g") and not data.startswith(b"group,")):
            self.seen += 1
            if self.seen == self.after:
                self.full = True
                return os.write(fd, data[: len(data) // 2])
        return os.write(fd, data)


def test_a_full_disk_while_appending_leaves_only_complete_rows(tmp_path, reference, monkeypatch):
    monkeypatch.setattr(runner, "_write", FullDisk(after=4))
    with pytest.raises(OSError, match="disk is full") as info:
        run(tmp_path)
    assert info.value.errno == errno.ENOSPC
    assert f"cannot write {RESULTS_FILE} in the output folder {tmp_path}" in str(info.value)
    data = (tmp_path / RESULTS_FILE).read_bytes()
    assert data.endswith(b"\n")
    assert data.splitlines() == (reference / RESULTS_FILE).read_bytes().splitlines()[:4]
    monkeypatch.undo()
    run(tmp_path)  # space again: the run resumes
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


def test_a_full_disk_during_the_final_rewrite_keeps_the_rows(tmp_path, reference, monkeypatch):
    tasks = keys_and_payloads(COUNT)
    full = FullDisk(after=COUNT + 3, rows_only=False)  # json, header, 12 rows, then the rewrite
    monkeypatch.setattr(runner, "_write", full)
    with pytest.raises(OSError, match="disk is full"):
        run(tmp_path, tasks=tasks, parquet=False)
    assert full.full
    assert sorted(path.name for path in tmp_path.iterdir()) == [RESULTS_FILE, MANIFEST_FILE]
    assert (tmp_path / RESULTS_FILE).read_bytes() == (reference / RESULTS_FILE).read_bytes()


# --------------------------------------------------------------------------------------------------
# progress bar, bad arguments


def test_the_progress_bar_counts_tasks_and_sums_the_counter_column(tmp_path, capsys):
    run(tmp_path, tasks=keys_and_payloads(COUNT, fail=(5,)), progress=True, counter="events")
    shown = capsys.readouterr().err
    expected = sum(expected_row(i)["events"] for i in range(COUNT) if i != 5)
    assert f"{COUNT}/{COUNT}" in shown
    assert f"events: {expected}" in shown
    assert "failed: 1" in shown
    run(tmp_path / "quiet")
    assert capsys.readouterr().err == ""


def module_level_lambda_is_not_picklable():
    return lambda payload: {}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"tasks": []}, "tasks: the task list is empty"),
        ({"tasks": [Task(("a", 1), 0), Task(("a", 1), 1)]}, r"tasks\[1\]\.key .* not unique"),
        ({"tasks": [Task(("a", 1), 0), Task(("a",), 1)]}, r"tasks\[1\]\.key must be a tuple of 2"),
        ({"tasks": [Task(("a", 1.5), 0)]}, r"tasks\[0\]\.key\['index'\] must be a str or an int"),
        ({"tasks": [Task(("", 1), 0)]}, "non-empty line of text"),
        ({"tasks": [("a", 1)]}, r"tasks\[0\]\.key must be a non-empty tuple"),
        ({"columns": ["group", "index", "error"]}, "'error' is the runner's own column"),
        ({"columns": ["group", "index", "index"]}, "unique"),
        ({"columns": ["group"]}, "must start with the 2 key fields"),
        ({"columns": {"group": str, "index": float}}, "a key column holds int or str"),
        ({"columns": {"group": str, "index": list}}, "must be int, float, str, bool"),
        ({"counter": "index"}, "counter must be one of the value columns"),
        ({"counter": "missing"}, "counter must be one of the value columns"),
        ({"workers": 0}, "workers must be a positive int"),
        ({"manifest": {"x": {1, 2}}}, "manifest must be JSON data"),
        ({"manifest": {"x": math.nan}}, "manifest must be JSON data"),
        ({"start_method": "teleport"}, "start_method must be one of"),
        ({"chunk": 0}, "chunk must be None or an integer >= 1, got 0"),
        ({"chunk": 2.5}, "chunk must be None or an integer >= 1"),
        ({"chunk": True}, "chunk must be None or an integer >= 1"),
        ({"function": module_level_lambda_is_not_picklable(), "workers": 2}, "cannot be pickled"),
    ],
)
def test_bad_arguments_are_value_errors_naming_the_argument(tmp_path, arguments, expected):
    with pytest.raises(ValueError, match=expected):
        run(tmp_path / "out", **arguments)
    assert not (tmp_path / "out").exists()


def test_read_results_of_a_folder_that_is_not_a_run_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a runner's output folder"):
        read_results(tmp_path)
    (tmp_path / MANIFEST_FILE).write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match=r"is not a runner's run\.json"):
        read_results(tmp_path)


@pytest.mark.parametrize(
    ("module", "arguments", "extra"),
    [
        ("pyarrow", {"parquet": True}, "steerlab[parquet]"),
        ("ray", {"ray": True}, "steerlab[ray]"),
        ("ray", {"ray_address": "localhost:6379"}, "steerlab[ray]"),
    ],
)
def test_a_missing_extra_asked_for_is_an_import_error_naming_it(
    tmp_path, monkeypatch, module, arguments, extra
):
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: import raises
    with pytest.raises(ImportError, match=re.escape(f"pip install '{extra}'")):
        run(tmp_path / "out", **arguments)
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_without_pyarrow_and_parquet_not_asked_for_only_the_csv_is_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    run(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == [RESULTS_FILE, MANIFEST_FILE]
