"""``steerlab warmup``'s task runner: every task once, in this process or in worker processes."""

import functools

import numba
import pytest

from steerlab.cli.warmup import run_tasks


def _compile_one(exponent, progress):
    progress(f"x ** {exponent}")

    @numba.njit(cache=False)
    def power(x):
        return x**exponent

    assert power(2.0) == 2.0**exponent


def _fail(progress):
    raise ValueError("a task's error")


def three_tasks():
    return [(f"power {k}", functools.partial(_compile_one, k)) for k in (2, 3, 4)]


def failing_tasks():
    return [*three_tasks(), ("fails", _fail)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_task_runs_once_and_its_compiles_are_counted(jobs):
    shown = []
    compiled = run_tasks(three_tasks, jobs, lambda what, done, total: shown.append((done, total)))
    assert compiled == 3  # each task compiles its own function, once
    assert shown[-1] == (3, 3) and {total for _, total in shown} == {3}
    done = [done for done, _ in shown]
    assert done == sorted(done)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_task_s_error_stops_the_run_and_is_raised(jobs):
    with pytest.raises(ValueError, match="a task's error"):
        run_tasks(failing_tasks, jobs, lambda *_: None)
