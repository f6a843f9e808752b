"""A resumable runner of independent tasks: benchmark trials, tuning evaluations, any sweep.

The runner knows nothing about vehicles. A task is a key (a tuple of ``str`` / ``int`` values,
unique in the run) and a picklable payload; ``function(payload) -> dict`` computes one row (or,
with ``chunk``, ``function(payloads) -> rows`` a batch of them: a batched simulator). Each
finished task is appended at once to ``out_dir/results.csv``, so an interrupted run (a kill, a
crash, a full disk) resumes where it stopped, with no task lost or repeated, and a complete run
gives the same bytes whether it ran on one worker, a process pool or Ray.

Files in ``out_dir``:

- ``run.json``: written first, atomically: the caller's ``manifest`` (suite name and hash,
  steerlab version, ...), the columns and their types, the number of key columns, the number of
  tasks and a SHA-256 of their keys. A rerun whose manifest, columns or task list differ is
  refused (``ValueError``): runs are never mixed. Delete the folder or choose another one.
- ``results.csv``: header = the caller's columns, then ``error``. One line per task, appended by
  the parent process as one ``os.write`` of the complete line followed by ``os.fsync``; a write
  that fails (disk full) is truncated back to the last complete row before the error is raised.
  A kill can still leave a partial last line (a write cut short by the kernel): on resume that
  trailing partial line is cut off (any text after the last line break). A line with the wrong
  number of fields, a key outside the task list, a key present twice or a different header means
  the file is not this run's: refused. So is a field that does not read as its column's declared
  type (``12x`` in an ``int`` column): the whole file is checked before any remaining task runs,
  and the error names the file, the line and the column. When every task is in the file, it is
  rewritten in task-list order (temporary file, ``os.fsync``, ``os.replace``), so 1 worker, N
  workers and Ray give byte-identical files.
- ``results.parquet``: written the same way at the end of a complete run, one column per CSV
  column with the column's type, ``run.json``'s content in the schema metadata. ``parquet=None``
  (default) writes it when pyarrow is installed; ``parquet=True`` requires it (an ``ImportError``
  naming the ``parquet`` extra before any task runs); ``parquet=False`` never writes it.

Columns and keys. ``columns`` starts with the key fields, in the key's order: the first
``len(task.key)`` columns name them (every key has the same length). The task function may return
the key fields (they must equal the task's key) or only the other columns; every other column
must be in the row, and nothing else. ``columns`` is a sequence of names or a mapping ``name ->
type`` (``int``, ``float``, ``str``, ``bool``, their names, or ``None`` for "untyped"). A typed
column checks each value (an ``int`` is accepted in a ``float`` column; a ``bool`` is not an
``int``) and is read back with that type; an untyped column is written as given and read back by
inference over the whole column (``int`` if every value is written exactly like an int, ``float``
if like a float or an int, ``bool`` if every value is ``true`` / ``false``, else ``str``): declare
the type of a text column whose values could look like numbers. Values: ``None``, ``bool``,
``int``, ``float`` (written with ``repr``: shortest exact round trip; ``nan``, ``inf``, ``-0.0``
kept), ``str`` (no line breaks), and NumPy scalars of those. ``None`` and ``""`` are both an empty
field, read back as ``None``.

Errors of a task. An exception raised by the task function, or a row that breaks the rules above,
does not stop the run: the task's row holds its key, empty values and, in the ``error`` column
(always present, always last; empty = success), ``"ExceptionType: message"`` on one line. So a
simulator that explodes into NaN is a failed trial, not a crashed run. An error row counts as
done; ``retry_errors=True`` reruns the failed tasks of an earlier run. Failures of the machinery
(a worker process killed, a payload that cannot be pickled) raise ``RuntimeError``: the rows
written so far stay, and a rerun resumes.

Workers. ``workers=1`` runs the tasks in this process, in task-list order (no pool). ``workers >
1``: a ``concurrent.futures.ProcessPoolExecutor``. Start method: ``"fork"`` where the platform has
it and it is safe, i.e. this process runs no other Python thread and numba has not launched its
threading layer here (forked children then start at once and inherit the imported modules and
compiled kernels); otherwise ``"spawn"`` (a fresh interpreter per worker). ``start_method=``
overrides (``"forkserver"`` is refused: its workers outlive a killed run). The pool is started
before the progress bar's refresh thread, so that thread is never forked. Each worker runs numba
with ``cpu_count // workers`` threads (at least one) so that a task using a parallel kernel does not
oversubscribe the cores, and exits by itself within a second when the run's process is killed (a
watchdog thread: a worker would otherwise wait on its task queue for ever). ``ray=True`` runs the
tasks as Ray tasks (``num_cpus=1`` each, numba limited to one thread):
``ray.init(num_cpus=workers)`` locally (its processes inherit ``PYTHONPATH`` = this process's
``sys.path``, as multiprocessing's spawn passes it, so the workers import the task function's
module), or ``ray_address="host:port"`` (which implies ``ray=True``) to join a cluster, where
``workers``, if given, caps the tasks in flight. An existing ``ray.init`` is reused and left
running. The task function is pickled by reference: a module-level function of an importable module.

Progress (``progress=True``): a rich bar on stderr with the tasks done / total (those already in
the file count as done), elapsed time, ETA, the running sum of the ``counter`` column (e.g.
``stuck events: 17``) and the number of failed tasks.

Concurrent runs on one folder are refused (an exclusive ``filelock`` lock named after the folder's
real path, in the temporary folder; a killed run releases it, once its workers have exited).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import io
import json
import math
import multiprocessing
import os
import pickle
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from filelock import FileLock, Timeout

__all__ = [
    "ERROR_COLUMN",
    "MANIFEST_FILE",
    "PARQUET_FILE",
    "RESULTS_FILE",
    "Task",
    "ray_session",
    "read_results",
    "run_tasks",
    "start_ray",
]

RESULTS_FILE = "results.csv"
MANIFEST_FILE = "run.json"
PARQUET_FILE = "results.parquet"
ERROR_COLUMN = "error"
FORMAT = "steerlab.runner/1"
ERROR_TEXT_LIMIT = 2000  # characters of an exception's text kept in the error column
TYPE_NAMES = {int: "int", float: "float", str: "str", bool: "bool"}

# the low-level write of every file the runner writes (tests replace it to simulate a full disk)
_write = os.write


class Task(NamedTuple):
    """One unit of work: ``key`` (a tuple of ``str`` / ``int``, unique in a run, e.g.
    ``("hill_climb", "storm", "ours", 2)``) and ``payload`` (the picklable argument of the task
    function)."""

    key: tuple
    payload: Any


class _Layout(NamedTuple):
    """What a worker needs to turn a task function's row into CSV fields."""

    names: tuple[str, ...]  # the caller's columns (without ``error``)
    kinds: tuple[str | None, ...]  # "int" | "float" | "str" | "bool" | None (untyped)
    key_count: int


# --------------------------------------------------------------------------------------------------
# values <-> CSV fields


def _format_value(value: Any, kind: str | None, column: str) -> str:
    """One value as its CSV field; ``ValueError`` / ``TypeError`` naming the column otherwise."""
    if value is None:
        return ""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        if kind in (None, "bool"):
            return "true" if value else "false"
    elif isinstance(value, int):
        if kind in (None, "int"):
            return str(value)
        if kind == "float":
            return repr(float(value))
    elif isinstance(value, float):
        if kind in (None, "float"):
            return repr(value)
    elif isinstance(value, str):
        if kind in (None, "str"):
            if "\n" in value or "\r" in value:
                raise ValueError(f"column {column!r}: a text value holds a line break: {value!r}")
            return value
    else:
        raise TypeError(
            f"column {column!r}: {type(value).__name__} values are not supported "
            f"(None, bool, int, float, str), got {value!r}"
        )
    raise TypeError(f"column {column!r} holds {kind} values, got {type(value).__name__} {value!r}")


def _is_int_text(text: str) -> bool:
    try:
        return str(int(text)) == text
    except ValueError:
        return False


def _is_float_text(text: str) -> bool:
    try:
        return repr(float(text)) == text
    except ValueError:
        return False


def _infer_kind(texts: Iterable[str]) -> str:
    """The type of an untyped column from its non-empty fields (see the module docstring)."""
    values = [text for text in texts if text]
    if all(_is_int_text(text) for text in values):
        return "int" if values else "str"
    if all(_is_int_text(text) or _is_float_text(text) for text in values):
        return "float"
    if all(text in ("true", "false") for text in values):
        return "bool"
    return "str"


def _parse_value(text: str, kind: str) -> Any:
    if not text:
        return None
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"not a bool: {text!r}")
        return text == "true"
    return text


def _csv_line(fields: Sequence[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(fields)
    return buffer.getvalue()


def _error_text(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = f"{type(error).__name__}: {' / '.join(lines)}" if lines else type(error).__name__
    return text[:ERROR_TEXT_LIMIT]


# --------------------------------------------------------------------------------------------------
# the call of one task (in this process, a pool worker or a Ray worker)

_threads_set: int | None = None  # numba threads set in this worker process


def _use_threads(threads: int | None) -> None:
    """In a worker: run numba with ``threads`` threads (once per process)."""
    global _threads_set
    if threads is None or _threads_set == threads:
        return
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    _threads_set = threads


def _watch_parent(parent: int) -> None:
    """In a pool worker: exit when the process that started it is gone (killed; the worker is
    then adopted by another): a worker would otherwise wait on the task queue for ever."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _start_worker(parent: int, threads: int) -> None:
    """Initializer of a pool worker: numba threads, and the parent watchdog."""
    if os.getppid() != parent:  # the run was killed before this worker started
        os._exit(1)
    _use_threads(threads)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _row_fields(row: Any, key_texts: tuple[str, ...], layout: _Layout) -> tuple[str, ...]:
    if not isinstance(row, Mapping):
        raise TypeError(f"the task function returned {type(row).__name__}, not a dict")
    known = set(layout.names)
    unknown = [name for name in row if name not in known]
    if unknown:
        raise ValueError(f"the row has columns that are not in `columns`: {unknown}")
    count = layout.key_count
    for name, kind, text in zip(layout.names[:count], layout.kinds[:count], key_texts, strict=True):
        if name in row and _format_value(row[name], kind, name) != text:
            raise ValueError(f"row[{name!r}] = {row[name]!r} differs from the task's key {text!r}")
    missing = [name for name in layout.names[count:] if name not in row]
    if missing:
        raise ValueError(f"the row has no value for columns {missing}")
    values = (
        _format_value(row[name], kind, name)
        for name, kind in zip(layout.names[count:], layout.kinds[count:], strict=True)
    )
    return (*key_texts, *values, "")


def _call(
    function: Callable[[Any], Any],
    key_texts: tuple[str, ...],
    payload: Any,
    layout: _Layout,
    threads: int | None,
) -> tuple[str, ...]:
    """Run one task; its CSV fields (key, values, error). An exception of the task (or a bad row)
    gives the error row; only ``BaseException``\\ s that are not ``Exception`` (an interrupt)
    escape."""
    _use_threads(threads)
    try:
        return _row_fields(function(payload), key_texts, layout)
    except Exception as error:
        return _error_fields(key_texts, layout, error)


def _error_fields(key_texts: tuple[str, ...], layout: _Layout, error: BaseException):
    empty = ("",) * (len(layout.names) - layout.key_count)
    return (*key_texts, *empty, _error_text(error))


def _call_chunk(
    function: Callable[[Any], Any],
    keys: tuple[tuple[str, ...], ...],
    payloads: tuple[Any, ...],
    layout: _Layout,
    threads: int | None,
) -> list[tuple[str, ...]]:
    """Run a chunk of tasks in one call, ``function(list of payloads) -> list of rows``; each
    task's CSV fields. An exception of the call is every task's error row; a bad row only its
    own task's."""
    _use_threads(threads)
    try:
        rows = function(list(payloads))
        if not isinstance(rows, Sequence) or len(rows) != len(payloads):
            raise TypeError(
                f"the chunk function returned {type(rows).__name__} for {len(payloads)} tasks, "
                "not a list of as many rows"
            )
    except Exception as error:
        return [_error_fields(key_texts, layout, error) for key_texts in keys]
    fields = []
    for key_texts, row in zip(keys, rows, strict=True):
        try:
            fields.append(_row_fields(row, key_texts, layout))
        except Exception as error:
            fields.append(_error_fields(key_texts, layout, error))
    return fields


def _units(work, chunk: int | None):
    """The work as units of one call: ``(indices, keys, payloads)`` of up to ``chunk`` tasks in
    task-list order (one task per unit without ``chunk``)."""
    step = chunk or 1
    for start in range(0, len(work), step):
        part = work[start : start + step]
        yield (
            tuple(index for index, _, _ in part),
            tuple(key for _, key, _ in part),
            tuple(payload for _, _, payload in part),
        )


def _run_unit(function, unit, layout, threads, chunked: bool) -> list[tuple[str, ...]]:
    """A unit's fields, one tuple per task (``_call`` or ``_call_chunk``)."""
    _, keys, payloads = unit
    if chunked:
        return _call_chunk(function, keys, payloads, layout, threads)
    return [_call(function, keys[0], payloads[0], layout, threads)]


# --------------------------------------------------------------------------------------------------
# files


def _folder_error(error: OSError, message: str) -> OSError:
    """``message: reason`` as the same kind of ``OSError`` (``OSError(errno, ...)`` picks the
    subclass: ``PermissionError``...); a full disk says so."""
    reason = error.strerror or str(error)
    if error.errno == errno.ENOSPC:
        reason = f"{reason} (the disk is full)"
    return OSError(error.errno, f"{message}: {reason}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_write(fd, view) :]


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not possible on every platform; best effort
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _atomic_write(path: Path, data: bytes, folder: Path) -> None:
    """``path`` holds ``data`` or its previous content, never a mix (temporary file, fsync,
    ``os.replace``)."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise _folder_error(
            error, f"cannot write {path.name} in the output folder {folder}"
        ) from error
    _fsync_folder(folder)


class _AppendFile:
    """``results.csv`` opened for appending complete lines, each written then fsynced; a failed
    write is truncated back to the end of the last complete line."""

    def __init__(self, path: Path, folder: Path):
        self.path = path
        self.folder = folder
        try:
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as error:
            raise _folder_error(
                error, f"cannot open {path.name} in the output folder {folder}"
            ) from error
        self.size = os.fstat(self.fd).st_size

    def append(self, data: bytes) -> None:
        start = self.size
        try:
            _write_all(self.fd, data)
            os.fsync(self.fd)
        except BaseException as error:  # a full disk, or an interrupt between two partial writes
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, start)
                os.fsync(self.fd)
            if isinstance(error, OSError):
                raise _folder_error(
                    error, f"cannot write {self.path.name} in the output folder {self.folder}"
                ) from error
            raise
        self.size = start + len(data)

    def close(self) -> None:
        os.close(self.fd)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock for the runs into ``folder``: a lock file in the temporary folder named
    after the folder's real path (the output folder holds only the run's files), taken without
    waiting (``filelock``: every platform)."""
    where = os.path.realpath(folder)
    name = "steerlab-run-" + hashlib.sha256(where.encode()).hexdigest()[:16] + ".lock"
    lock = FileLock(os.path.join(tempfile.gettempdir(), name), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise RuntimeError(
            f"another run is writing to the output folder {folder}; wait for it to end "
            "or choose another folder"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _prepare_folder(out_dir: str | os.PathLike) -> Path:
    folder = Path(out_dir)
    try:
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"out_dir: {folder} exists and is not a folder")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _folder_error(error, f"cannot create the output folder {folder}") from error
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(
            errno.EACCES, f"the output folder {folder} is not writable (permission denied)"
        )
    return folder


def _split_complete(data: bytes) -> tuple[bytes, int]:
    """The complete lines of ``data`` and their length (text after the last line break is a
    partial line: cut)."""
    end = data.rfind(b"\n") + 1
    return data[:end], end


def _parse_line(line: str, where: str, width: int) -> list[str]:
    fields = next(csv.reader([line]))
    if len(fields) != width:
        raise ValueError(
            f"{where} has {len(fields)} fields where the header has {width}: the file is not "
            "this run's results (or it was edited); choose another output folder"
        )
    return fields


def _check_fields(fields: Sequence[str], where: str, layout: _Layout) -> None:
    """``ValueError`` naming ``where`` (the file and line) and the column of the first field
    that does not read as its column's declared type (``12x`` in an ``int`` column)."""
    for position, (name, kind, text) in enumerate(
        zip(layout.names, layout.kinds, fields, strict=False)
    ):
        if kind is not None:
            try:
                _parse_value(text, kind)
            except ValueError:
                raise ValueError(
                    f"{where} column {position + 1} ({name!r}): {text!r} is not a {kind} value; "
                    "the file was edited or damaged: correct or delete that line"
                ) from None


# --------------------------------------------------------------------------------------------------
# validation of the arguments


def _kind_name(column: str, kind: Any) -> str | None:
    if kind is None:
        return None
    if kind in TYPE_NAMES:
        return TYPE_NAMES[kind]
    if isinstance(kind, str) and kind in TYPE_NAMES.values():
        return kind
    raise ValueError(
        f"columns[{column!r}] must be int, float, str, bool (or their names) or None, got {kind!r}"
    )


def _layout(columns: Sequence[str] | Mapping[str, Any], key_count: int) -> _Layout:
    if isinstance(columns, Mapping):
        items = list(columns.items())
    elif isinstance(columns, str) or not isinstance(columns, Sequence):
        raise ValueError(f"columns must be a sequence of names or a mapping, got {columns!r}")
    else:
        items = [(name, None) for name in columns]
    names = []
    kinds = []
    for name, kind in items:
        if not isinstance(name, str) or not name or "\n" in name or "\r" in name:
            raise ValueError(
                f"columns: a column name must be a non-empty line of text, got {name!r}"
            )
        if name == ERROR_COLUMN:
            raise ValueError(
                f"columns: {ERROR_COLUMN!r} is the runner's own column (always last); do not "
                "list it"
            )
        names.append(name)
        kinds.append(_kind_name(name, kind))
    if len(set(names)) != len(names):
        raise ValueError(f"columns: names must be unique, got {names}")
    if key_count > len(names):
        raise ValueError(
            f"columns must start with the {key_count} key fields of the tasks, got {names}"
        )
    for name, kind in zip(names[:key_count], kinds[:key_count], strict=True):
        if kind not in (None, "int", "str"):
            raise ValueError(f"columns[{name!r}]: a key column holds int or str, not {kind}")
    return _Layout(tuple(names), tuple(kinds), key_count)


def _check_tasks(tasks: Iterable[Any]) -> list[Task]:
    checked = []
    for index, task in enumerate(tasks):
        try:
            key, payload = task
        except (TypeError, ValueError):
            raise ValueError(f"tasks[{index}] must be a Task(key, payload), got {task!r}") from None
        checked.append(Task(key, payload))
    if not checked:
        raise ValueError("tasks: the task list is empty")
    first = checked[0].key
    if not isinstance(first, tuple) or not first:
        raise ValueError(f"tasks[0].key must be a non-empty tuple, got {first!r}")
    return checked


def _key_texts(key: Any, index: int, layout: _Layout) -> tuple[str, ...]:
    if not isinstance(key, tuple) or len(key) != layout.key_count:
        raise ValueError(
            f"tasks[{index}].key must be a tuple of {layout.key_count} values like tasks[0].key, "
            f"got {key!r}"
        )
    texts = []
    for value, name, kind in zip(key, layout.names, layout.kinds, strict=False):
        if isinstance(value, np.integer):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"tasks[{index}].key[{name!r}] must be a str or an int, got {value!r}")
        if isinstance(value, str) and (not value or "\n" in value or "\r" in value):
            raise ValueError(
                f"tasks[{index}].key[{name!r}] must be a non-empty line of text, got {value!r}"
            )
        if kind is not None and TYPE_NAMES[type(value)] != kind:
            raise ValueError(
                f"tasks[{index}].key[{name!r}] = {value!r} is not of the column's type {kind}"
            )
        texts.append(str(value))
    return tuple(texts)


def _check_manifest(manifest: Any) -> dict:
    if not isinstance(manifest, Mapping):
        raise ValueError(f"manifest must be a dict, got {manifest!r}")
    try:
        text = json.dumps(manifest, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"manifest must be JSON data (finite numbers): {error}") from None
    return json.loads(text)


def _check_workers(workers: Any) -> int:
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    return workers


def _keys_digest(key_lines: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for line in sorted(key_lines):
        digest.update(line.encode())
    return digest.hexdigest()


def _run_record(manifest: dict, layout: _Layout, task_count: int, digest: str) -> dict:
    return {
        "format": FORMAT,
        "manifest": manifest,
        "columns": [*layout.names, ERROR_COLUMN],
        "types": dict(zip(layout.names, layout.kinds, strict=True)),
        "key_columns": layout.key_count,
        "tasks": task_count,
        "task_keys_sha256": digest,
    }


def _record_bytes(record: dict) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n").encode()


def _differences(stored: Any, wanted: Any, prefix: str = "") -> list[str]:
    if isinstance(stored, dict) and isinstance(wanted, dict):
        found = []
        for name in sorted(set(stored) | set(wanted), key=str):
            found += _differences(stored.get(name), wanted.get(name), f"{prefix}{name}.")
        return found
    if stored != wanted:
        return [f"{prefix.rstrip('.')}: stored {stored!r}, now {wanted!r}"]
    return []


def _read_record(path: Path) -> dict:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a runner's run.json ({error})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"{path} is not a runner's run.json (format {FORMAT!r} expected)")
    return record


def _check_or_write_record(folder: Path, record: dict) -> None:
    path = folder / MANIFEST_FILE
    if not path.exists():
        if (folder / RESULTS_FILE).exists():
            raise ValueError(
                f"{folder / RESULTS_FILE} exists without {MANIFEST_FILE}: not this runner's "
                "results; choose another output folder"
            )
        _atomic_write(path, _record_bytes(record), folder)
        return
    stored = _read_record(path)
    differences = _differences(stored, record)
    if differences:
        raise ValueError(
            f"the output folder {folder} holds another run (its {MANIFEST_FILE} differs: "
            + "; ".join(differences[:5])
            + "); runs are never mixed: choose another folder or delete this one"
        )


# --------------------------------------------------------------------------------------------------
# backends: each yields (task index, fields) as tasks finish


def _default_start_method() -> str:
    """``fork`` when it is safe here (no other thread, numba's threads not launched), else
    ``spawn``."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return "spawn"
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    numba_threads = bool(getattr(parallel, "_is_initialized", False))
    if threading.active_count() > 1 or numba_threads:
        return "spawn"
    return "fork"


class _InProcess:
    def __init__(self, function, work, layout, chunk):
        self.function, self.work, self.layout, self.chunk = function, work, layout, chunk

    def __enter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        return (
            (index, fields)
            for unit in _units(self.work, self.chunk)
            for index, fields in zip(
                unit[0],
                _run_unit(self.function, unit, self.layout, None, self.chunk is not None),
                strict=True,
            )
        )

    def __exit__(self, *exc_info):
        return False


class _Pool:
    def __init__(self, function, work, layout, workers, start_method, chunk):
        self.function, self.work, self.layout, self.chunk = function, work, layout, chunk
        self.workers = workers
        self.start_method = start_method or _default_start_method()
        self.threads = max(1, (os.cpu_count() or 1) // workers)
        self.executor = None

    def __enter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context(self.start_method)
        self.executor = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(os.getpid(), self.threads),
        )
        # every unit submitted now: with fork the workers are forked at the first submit, before
        # the executor's (and the progress bar's) threads start
        self.futures = {}
        try:
            for unit in _units(self.work, self.chunk):
                arguments = (self.function, unit, self.layout, None, self.chunk is not None)
                self.futures[self.executor.submit(_run_unit, *arguments)] = unit
        except BaseException:
            self.executor.shutdown(wait=True, cancel_futures=True)
            raise
        return self._outcomes()

    def _outcomes(self):
        from concurrent.futures import as_completed

        for future in as_completed(self.futures):
            indices, keys, _ = self.futures.pop(future)
            try:
                rows = future.result()
            except Exception as error:
                raise RuntimeError(
                    f"the worker pool failed on task {keys[0]} ({_error_text(error)}); the rows "
                    "written so far are kept: rerun to resume"
                ) from error
            yield from zip(indices, rows, strict=True)

    def __exit__(self, *exc_info):
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
        return False


class _Ray:
    def __init__(self, function, work, layout, workers, address, explicit_workers, chunk):
        self.function, self.work, self.layout, self.chunk = function, work, layout, chunk
        self.workers = workers
        self.address = address
        self.window = workers if (address is None or explicit_workers) else len(work)
        self.started = False
        self.in_flight = {}  # Ray object reference -> the unit

    def __enter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        ray, started = start_ray(self.workers, self.address)
        self.ray = ray
        self.started = started
        self.remote = ray.remote(num_cpus=1)(_run_unit)
        return self._outcomes()

    def _outcomes(self):
        ray = self.ray
        queue = _units(self.work, self.chunk)
        in_flight = self.in_flight

        def submit():
            unit = next(queue, None)
            if unit is not None:
                reference = self.remote.remote(
                    self.function, unit, self.layout, 1, self.chunk is not None
                )
                in_flight[reference] = unit

        for _ in range(max(1, 2 * self.window)):
            submit()
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            indices, keys, _ = in_flight.pop(ready[0])
            try:
                rows = ray.get(ready[0])
            except Exception as error:
                raise RuntimeError(
                    f"Ray failed on task {keys[0]} ({_error_text(error)}); the rows written so "
                    "far are kept: rerun to resume"
                ) from error
            submit()
            for index, fields in zip(indices, rows, strict=True):
                yield index, tuple(fields)

    def __exit__(self, *exc_info):
        if self.started:
            self.ray.shutdown()
        else:  # someone else's Ray: stop only our tasks
            for reference in self.in_flight:
                with contextlib.suppress(Exception):
                    self.ray.cancel(reference)
        return False


# --------------------------------------------------------------------------------------------------
# progress


class _Progress:
    """A rich progress bar on stderr: tasks done / total, elapsed, ETA, the running sum of the
    ``counter`` column and the number of failed tasks; nothing when off."""

    def __init__(self, enabled: bool, total: int, counter: str | None):
        self.enabled = enabled
        self.counter = counter
        self.counter_sum = 0.0
        self.errors = 0
        self.done = 0  # tasks counted (already in the file, then finished)
        self.total = total
        self.bar = None

    def count(self, fields: tuple[str, ...], counter_index: int | None) -> None:
        self.done += 1
        if fields[-1]:
            self.errors += 1
        if counter_index is not None and fields[counter_index]:
            with contextlib.suppress(ValueError):
                value = float(fields[counter_index])
                if math.isfinite(value):
                    self.counter_sum += value

    def _extra(self) -> str:
        parts = []
        if self.counter is not None:
            total = self.counter_sum
            shown = f"{int(total)}" if total.is_integer() else f"{total:.6g}"
            parts.append(f"{self.counter.replace('_', ' ')}: {shown}")
        if self.errors:
            parts.append(f"[red]failed: {self.errors}[/red]")
        return "  ".join(parts)

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]tasks"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[extra]}"),
                console=Console(stderr=True),
            )
            self.bar.start()
            self.task = self.bar.add_task(
                "tasks", total=self.total, completed=self.done, extra=self._extra()
            )
        return self

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, extra=self._extra())

    def __exit__(self, *exc_info):
        if self.bar is not None:
            self.bar.stop()
        return False


# --------------------------------------------------------------------------------------------------
# the run


def _load_done(
    folder: Path,
    header: bytes,
    index_of: dict[tuple[str, ...], int],
    layout: _Layout,
    retry_errors: bool,
) -> dict[int, tuple[str, ...]]:
    """The rows already in ``results.csv`` (task index -> fields), after cutting a partial last
    line, dropping error rows if asked, and writing the header into a new or empty file."""
    path = folder / RESULTS_FILE
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError as error:
        raise _folder_error(
            error, f"cannot read {RESULTS_FILE} in the output folder {folder}"
        ) from error
    complete, end = _split_complete(data)
    try:
        lines = complete.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(
            f"{path} is not UTF-8 text: not this run's results; choose another output folder"
        ) from None
    if lines and (lines[0] + "\n").encode() != header:
        raise ValueError(
            f"{path} has the header {lines[0]!r}, this run's is {header.decode().strip()!r}: "
            "the file is another run's results; choose another output folder"
        )
    width = len(layout.names) + 1
    done: dict[int, tuple[str, ...]] = {}
    seen: set[int] = set()
    kept = []
    for number, line in enumerate(lines[1:], start=2):
        fields = tuple(_parse_line(line, f"{path}, line {number},", width))
        _check_fields(fields, f"{path}, line {number},", layout)
        key = fields[: layout.key_count]
        if key not in index_of:
            raise ValueError(
                f"{path}, line {number}, holds the task {key}, which is not in this run's task "
                "list: the file is another run's results; choose another output folder"
            )
        if index_of[key] in seen:
            raise ValueError(f"{path}, line {number}: the task {key} is in the file twice")
        seen.add(index_of[key])
        if retry_errors and fields[-1]:
            continue
        done[index_of[key]] = fields
        kept.append(line)
    if not lines:  # a new file, an empty one, or a partial header: write the header
        _atomic_write(path, header, folder)
    elif len(kept) != len(lines) - 1:  # failed rows to retry: the other complete rows, atomically
        _atomic_write(path, header + "".join(line + "\n" for line in kept).encode(), folder)
    elif end != len(data):  # a partial last line (a kill mid-write): cut it off
        try:
            os.truncate(path, end)
        except OSError as error:
            raise _folder_error(
                error, f"cannot cut the partial last line of {path.name} in {folder}"
            ) from error
    return done


def run_tasks(
    tasks: Iterable[Task],
    function: Callable[[Any], Mapping[str, Any]],
    out_dir: str | os.PathLike,
    *,
    columns: Sequence[str] | Mapping[str, Any],
    manifest: Mapping[str, Any],
    workers: int | None = None,
    ray: bool = False,
    ray_address: str | None = None,
    progress: bool = True,
    counter: str | None = None,
    parquet: bool | None = None,
    start_method: str | None = None,
    retry_errors: bool = False,
    chunk: int | None = None,
) -> list[dict[str, Any]]:
    """Run every task not yet in ``out_dir/results.csv``; return all rows, in task-list order.

    Parameters
    ----------
    tasks
        ``Task(key, payload)`` items (or ``(key, payload)`` pairs); keys are tuples of ``str`` /
        ``int`` of one length, unique.
    function
        ``function(payload) -> dict`` of the columns (the key fields optional). A module-level
        function for ``workers > 1`` or Ray (it is pickled by reference).
    out_dir
        The run's folder, created if missing (see the module docstring for its files).
    columns
        The row's columns, key fields first: names, or a mapping ``name -> type``.
    manifest
        JSON data identifying the run (suite, suite hash, steerlab version...): a folder holding
        another manifest is refused.
    workers
        Processes (default ``os.cpu_count()``); 1 runs in this process. With Ray: CPUs of the
        local Ray, or the cap on tasks in flight on a cluster.
    ray, ray_address
        Run on Ray, local or at ``ray_address`` (which implies ``ray=True``).
    progress
        Show a rich progress bar on stderr.
    counter
        A value column whose running sum the progress bar shows (e.g. ``"stuck_events"``).
    parquet
        ``None``: also write ``results.parquet`` when pyarrow is installed; ``True``: required
        (``ImportError`` naming the ``parquet`` extra if pyarrow is missing, before any task
        runs); ``False``: never.
    start_method
        The process pool's start method, ``"fork"`` or ``"spawn"`` (default: ``"fork"`` when
        safe, else ``"spawn"``; not ``"forkserver"``, whose workers outlive a killed run).
    retry_errors
        Run again the tasks whose row in the file holds an error.
    chunk
        ``None`` (default): ``function(payload) -> row``, one task per call. An integer ``>= 1``:
        ``function(list of payloads) -> list of rows``, up to ``chunk`` tasks per call in
        task-list order (a batched simulator); each row is appended when its call returns, an
        exception of the call is the error row of each of its tasks.

    Returns
    -------
    list of dict
        One dict per task, in task-list order, typed as ``read_results`` reads them; ``"error"``
        is ``None`` for a successful task.

    Raises
    ------
    ValueError
        Bad arguments, or a folder holding another run's files.
    OSError
        The folder cannot be created or written (permission, disk full): the message names the
        folder; ``results.csv`` keeps only complete rows.
    RuntimeError
        The worker pool or Ray failed (not a task: a task's exception is its error row).
    ImportError
        ``ray=True`` without Ray, ``parquet=True`` without pyarrow.
    """
    checked = _check_tasks(tasks)
    layout = _layout(columns, len(checked[0].key))
    key_texts = [_key_texts(task.key, index, layout) for index, task in enumerate(checked)]
    index_of = {key: index for index, key in enumerate(key_texts)}
    if len(index_of) != len(key_texts):
        seen: set[tuple[str, ...]] = set()
        for index, key in enumerate(key_texts):
            if key in seen:
                raise ValueError(f"tasks[{index}].key {checked[index].key!r} is not unique")
            seen.add(key)
    if not callable(function):
        raise ValueError(f"function must be callable, got {function!r}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ValueError(f"chunk must be None or an integer >= 1, got {chunk!r}")
    record_manifest = _check_manifest(manifest)
    explicit_workers = workers is not None
    workers = _check_workers(workers)
    ray = bool(ray) or ray_address is not None
    if counter is not None and counter not in layout.names[layout.key_count :]:
        raise ValueError(f"counter must be one of the value columns, got {counter!r}")
    methods = [
        name for name in ("fork", "spawn") if name in multiprocessing.get_all_start_methods()
    ]
    if start_method is not None and start_method not in methods:
        raise ValueError(f"start_method must be one of {methods} or None, got {start_method!r}")
    if parquet is True:
        _import_pyarrow()
    if ray:
        try:
            import ray as _ray_module  # noqa: F401
        except ImportError as error:
            raise ImportError(
                "ray=True needs Ray, which is not installed: pip install 'steerlab[ray]'"
            ) from error
    elif workers > 1:
        try:
            pickle.dumps(function)
        except Exception as error:
            raise ValueError(
                f"function {function!r} cannot be pickled for worker processes (use a "
                f"module-level function, or workers=1): {error}"
            ) from None

    folder = _prepare_folder(out_dir)
    header = _csv_line([*layout.names, ERROR_COLUMN]).encode()
    key_lines = [_csv_line(key) for key in key_texts]
    record = _run_record(record_manifest, layout, len(checked), _keys_digest(key_lines))
    counter_index = layout.names.index(counter) if counter is not None else None
    with _folder_lock(folder):
        _check_or_write_record(folder, record)
        done = _load_done(folder, header, index_of, layout, retry_errors)
        work = [
            (index, key_texts[index], task.payload)
            for index, task in enumerate(checked)
            if index not in done
        ]
        if work:
            bar = _Progress(progress, len(checked), counter)
            for fields in done.values():
                bar.count(fields, counter_index)
            if ray:
                backend = _Ray(
                    function, work, layout, workers, ray_address, explicit_workers, chunk
                )
            elif min(workers, len(work)) == 1:
                backend = _InProcess(function, work, layout, chunk)
            else:
                pool_workers = min(workers, len(work))
                backend = _Pool(function, work, layout, pool_workers, start_method, chunk)
            results = _AppendFile(folder / RESULTS_FILE, folder)
            try:
                with backend as outcomes, bar:
                    for index, fields in outcomes:
                        results.append(_csv_line(fields).encode())
                        done[index] = fields
                        bar.count(fields, counter_index)
                        bar.advance()
            finally:
                results.close()
        ordered = [done[index] for index in range(len(checked))]
        lines = [header] + [_csv_line(fields).encode() for fields in ordered]
        _atomic_write(folder / RESULTS_FILE, b"".join(lines), folder)
        kinds = _column_kinds(ordered, layout)
        rows = _typed_rows(ordered, layout, kinds)
        if parquet is not False:
            _write_parquet(folder, rows, layout, kinds, record, required=parquet is True)
    return rows


# --------------------------------------------------------------------------------------------------
# reading results back, Parquet


def _column_kinds(rows_fields: Sequence[Sequence[str]], layout: _Layout) -> list[str]:
    kinds = []
    for position, kind in enumerate(layout.kinds):
        kinds.append(kind or _infer_kind(fields[position] for fields in rows_fields))
    return [*kinds, "str"]


def _typed_rows(
    rows_fields: Sequence[Sequence[str]], layout: _Layout, kinds: Sequence[str]
) -> list[dict[str, Any]]:
    names = [*layout.names, ERROR_COLUMN]
    return [
        {
            name: _parse_value(text, kind)
            for name, kind, text in zip(names, kinds, fields, strict=True)
        }
        for fields in rows_fields
    ]


def start_ray(workers: int, address: str | None = None):
    """Import Ray and start it unless it runs already: ``(ray, started)``.

    ``address=None`` starts a local Ray with ``workers`` CPUs whose processes inherit
    ``PYTHONPATH`` = this process's ``sys.path``, so its workers import the task function's module
    as this process does (a ``runtime_env`` does it too, at several seconds more per start); an
    address joins that cluster. A missing Ray is an ``ImportError`` naming the extra.
    """
    try:
        import ray
    except ImportError as error:
        raise ImportError(
            "ray=True needs Ray, which is not installed: pip install 'steerlab[ray]'"
        ) from error
    if ray.is_initialized():
        return ray, False
    if address is None:
        previous = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(entry or os.getcwd() for entry in sys.path)
        try:
            ray.init(num_cpus=workers, include_dashboard=False)
        finally:
            if previous is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = previous
    else:
        ray.init(address=address)
    return ray, True


@contextlib.contextmanager
def ray_session(ray: bool, ray_address: str | None, workers: int | None) -> Iterator[None]:
    """Ray started once around several ``run_tasks`` calls (a run of stages, a tuning study):
    each call reuses a running Ray and leaves it running, so without this each would start and
    stop its own (seconds each). Nothing without ``ray`` or ``ray_address``; a Ray already
    running is used and left running; one started here (``start_ray``) is shut down on leaving."""
    if not ray and ray_address is None:
        yield
        return
    ray_module, started = start_ray(workers or os.cpu_count(), ray_address)
    try:
        yield
    finally:
        if started:
            ray_module.shutdown()


def read_results(out_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of a run's ``results.csv``, typed (declared types, else inferred per column; an
    empty field is ``None``; ``"error"`` is ``None`` for a successful task), in file order: task
    order for a complete run, completion order for an interrupted one (a partial last line is
    ignored)."""
    folder = Path(out_dir)
    record_path = folder / MANIFEST_FILE
    if not record_path.is_file():
        raise FileNotFoundError(
            errno.ENOENT, f"no {MANIFEST_FILE} in {folder}: not a runner's output folder"
        )
    record = _read_record(record_path)
    try:
        names = [name for name in record["columns"] if name != ERROR_COLUMN]
        layout = _Layout(
            tuple(names),
            tuple(_kind_name(name, record["types"][name]) for name in names),
            int(record["key_columns"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{record_path} is not a runner's run.json ({error!r})") from None
    path = folder / RESULTS_FILE
    data = path.read_bytes() if path.exists() else b""
    complete, _ = _split_complete(data)
    try:
        lines = complete.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text: {error}") from None
    if not lines:
        return []
    header = _csv_line([*layout.names, ERROR_COLUMN]).rstrip("\n")
    if lines[0] != header:
        raise ValueError(f"{path} has the header {lines[0]!r}, its run.json says {header!r}")
    width = len(layout.names) + 1
    rows_fields = []
    for number, line in enumerate(lines[1:], start=2):
        rows_fields.append(_parse_line(line, f"{path}, line {number},", width))
        _check_fields(rows_fields[-1], f"{path}, line {number},", layout)
    return _typed_rows(rows_fields, layout, _column_kinds(rows_fields, layout))


def _import_pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as error:
        raise ImportError(
            "parquet=True needs pyarrow, which is not installed: pip install 'steerlab[parquet]'"
        ) from error
    return pyarrow, pyarrow.parquet


def _write_parquet(
    folder: Path,
    rows: list[dict[str, Any]],
    layout: _Layout,
    kinds: Sequence[str],
    record: dict,
    required: bool,
) -> None:
    try:
        pa, pq = _import_pyarrow()
    except ImportError:
        if required:
            raise
        return
    names = [*layout.names, ERROR_COLUMN]
    arrow_types = {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_()}
    schema = pa.schema(
        [pa.field(name, arrow_types[kind]) for name, kind in zip(names, kinds, strict=True)],
        metadata={"steerlab.run": json.dumps(record, sort_keys=True)},
    )
    table = pa.table({name: [row[name] for row in rows] for name in names}, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    _atomic_write(folder / PARQUET_FILE, sink.getvalue().to_pybytes(), folder)
