"""No public entry point hangs, crashes or raises anything but a ValueError naming an argument:
tests/fuzz_entries.py calls every entry of docs/api.md with hostile
arguments, one process per group of entries, so that a segfault or a hang in compiled code fails
the group's test instead of killing pytest.

Profiles (tests/conftest.py): the default runs each entry on 60 examples (a few thousand calls
in all); ``HYPOTHESIS_PROFILE=thorough`` on 1000 (over 20,000 calls). Each group prints its count
of calls; ``STEERLAB_FUZZ_COUNTS=file`` also appends them to ``file`` as JSON lines.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fuzz_entries import GROUPS  # noqa: E402

# a group's whole run (first calls compile; the thorough profile runs 1000 examples an entry)
GROUP_SECONDS = 3600 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 600


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_hostile_calls_return_finite_numbers_or_raise_value_error(group, tmp_path):
    counts = tmp_path / "counts.json"
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]),
    )
    try:
        done = subprocess.run(
            [sys.executable, str(HERE / "fuzz_entries.py"), group, str(counts)],
            capture_output=True,
            text=True,
            timeout=GROUP_SECONDS,
            env=environment,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"group {group!r} ran over {GROUP_SECONDS} s:\n{error.stderr}")
    if done.returncode < 0:
        pytest.fail(f"group {group!r} crashed (signal {-done.returncode}):\n{done.stderr[-5000:]}")
    assert counts.exists(), f"group {group!r} stopped early (a hang?):\n{done.stderr[-5000:]}"
    result = json.loads(counts.read_text())
    print(
        f"fuzz {group}: {result['calls']} calls ({result['value_errors']} ValueError) in "
        f"{result['seconds']:.1f} s"
    )
    log = os.environ.get("STEERLAB_FUZZ_COUNTS")
    if log:
        with open(log, "a") as file:
            file.write(json.dumps({"group": group, **result}) + "\n")
    assert done.returncode == 0, done.stderr[-20000:]
