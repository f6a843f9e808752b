"""TEST FIXTURE for tests/test_runner.py: tiny task functions for ``steerlab.runner``.

They live in a module of their own (not in the test file) so that worker processes, spawned or
Ray's, import them by name. Each row depends only on the payload's ``index``, so any worker, in
any order, must give the same row.
"""

from __future__ import annotations

import math
import os
import time

COLUMNS = ("group", "index", "value", "count", "label", "flag", "events", "spare")
TYPED_COLUMNS = {
    "group": str,
    "index": int,
    "value": float,
    "count": int,
    "label": str,
    "flag": bool,
    "events": int,
    "spare": float,
}


def expected_row(index: int) -> dict:
    """The row of task ``index``: floats that need all 17 digits, special values, text that the
    CSV module must quote."""
    value = math.sqrt(index + 2.0) / 3.0  # irrational: every digit matters
    specials = {
        3: math.nan,
        5: math.inf,
        6: -math.inf,
        7: -0.0,
        8: 1e-310,
        9: 1.7976931348623157e308,
    }
    labels = {2: "comma, inside", 4: 'a "quoted" word', 6: "", 10: "ünïcödé"}
    return {
        "group": "g" + str(index % 3),
        "index": index,
        "value": specials.get(index, value),
        "count": (index * 7919) % 1000 - 500,
        "label": labels.get(index, f"task {index}"),
        "flag": index % 2 == 0,
        "events": index % 4,
        "spare": None if index % 5 == 0 else index / 8.0,
    }


def compute(payload: dict) -> dict:
    """The row of ``payload["index"]``; appends the index to ``payload["log"]`` (one line, one
    ``os.write`` of an O_APPEND file) if given, sleeps ``payload["delay"]`` seconds if given, raises
    for an index in ``payload["fail"]`` or while the file ``payload["fail_while"]`` exists."""
    index = payload["index"]
    log = payload.get("log")
    if log is not None:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"{index}\n".encode())
        finally:
            os.close(fd)
    if payload.get("delay"):
        time.sleep(payload["delay"])
    if index in payload.get("fail", ()):
        raise FloatingPointError(f"simulation diverged at index {index}\nstate is NaN")
    fail_while = payload.get("fail_while")
    if fail_while is not None and os.path.exists(fail_while):
        raise RuntimeError("transient failure")
    return expected_row(index)


def compute_values_only(payload: dict) -> dict:
    """Like ``compute``, without the key fields in the row."""
    row = compute(payload)
    del row["group"], row["index"]
    return row


def bad_rows(payload: dict):
    """Rows that break the runner's rules, by index."""
    index = payload["index"]
    row = expected_row(index)
    if index == 0:
        return [1, 2, 3]  # not a dict
    if index == 1:
        del row["count"]  # a missing column
    elif index == 2:
        row["surplus"] = 1  # a column not declared
    elif index == 3:
        row["count"] = 2.5  # a float in an int column (typed run)
    elif index == 4:
        row["label"] = "two\nlines"  # a line break in text
    elif index == 5:
        row["index"] = 99  # a key field that differs from the task's key
    elif index == 6:
        row["spare"] = [1.0]  # a list
    return row


def keys_and_payloads(count: int, **payload):
    """``count`` tasks with keys ``("g<i % 3>", i)``."""
    from steerlab.runner import Task

    return [Task(("g" + str(i % 3), i), {"index": i, **payload}) for i in range(count)]


def compute_chunk(payloads: list) -> list:
    """``compute`` for a chunk of payloads, one call (a batched simulator's shape): the whole
    call raises if one of them is in its ``fail_chunk`` list; a row that breaks the runner's rules
    for an index in ``bad`` (a missing column)."""
    if any(payload["index"] in payload.get("fail_chunk", ()) for payload in payloads):
        raise FloatingPointError("the batch diverged")
    rows = []
    for payload in payloads:
        row = compute(payload)
        if payload["index"] in payload.get("bad", ()):
            del row["count"]
        rows.append(row)
    return rows
