"""``Trace``: the recorded frames of one simulated agent, arrays per field, saved as ``.npz``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["Trace"]

_FORMAT = "steerlab.trace/1"


class Trace:
    """Frames of one agent: times, one array per state field, one array per command field.

    ``t`` and every state array have ``steps + 1`` entries (the initial state first); command
    arrays have ``steps`` entries, command ``k`` applied between ``t[k]`` and ``t[k + 1]``.
    State fields read as attributes (``trace.x``); commands through ``trace.commands["yaw"]``
    (a state and a command may share a field name, as ``yaw`` does).
    """

    def __init__(
        self,
        t,
        states: Mapping[str, np.ndarray],
        commands: Mapping[str, np.ndarray],
        state_type: str = "",
        command_type: str = "",
    ):
        self.t = np.asarray(t, dtype=np.float64)
        self.states = {name: np.asarray(values) for name, values in states.items()}
        self.commands = {name: np.asarray(values) for name, values in commands.items()}
        self.state_type = state_type
        self.command_type = command_type
        frames = self.t.size
        for name, values in self.states.items():
            if values.shape[:1] != (frames,):
                raise ValueError(f"states[{name!r}] must have {frames} frames, got {values.shape}")
        for name, values in self.commands.items():
            if values.shape[:1] != (max(frames - 1, 0),):
                raise ValueError(
                    f"commands[{name!r}] must have {frames - 1} frames, got {values.shape}"
                )

    def __getattr__(self, name: str) -> np.ndarray:
        states = self.__dict__.get("states", {})
        if name in states:
            return states[name]
        raise AttributeError(f"Trace has no state field {name!r}")

    def __dir__(self) -> list[str]:
        """The attributes, the state fields included (``trace.x``: tab completion finds it)."""
        return sorted(set(super().__dir__()) | set(self.__dict__.get("states", {})))

    def __len__(self) -> int:
        return self.t.size

    @property
    def steps(self) -> int:
        return self.t.size - 1

    def state_at(self, index: int) -> dict[str, float]:
        """The state of frame ``index`` as a dict of floats."""
        return {name: float(values[index]) for name, values in self.states.items()}

    def save(self, path: str | Path) -> Path:
        """Write the trace to ``path`` (``.npz``, uncompressed); return the path."""
        path = Path(path)
        if path.suffix != ".npz":
            raise ValueError(f"path must end in .npz, got {str(path)!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": _FORMAT,
            "state_type": self.state_type,
            "command_type": self.command_type,
            "states": list(self.states),
            "commands": list(self.commands),
        }
        arrays = {"t": self.t, "meta": np.array(json.dumps(meta))}
        arrays.update({f"state.{name}": values for name, values in self.states.items()})
        arrays.update({f"command.{name}": values for name, values in self.commands.items()})
        with path.open("wb") as handle:
            np.savez(handle, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace written by ``save``; ``ValueError`` naming the file when it is not one."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("format") != _FORMAT:
                    raise ValueError(
                        f"{path}: not a steerlab trace (format {meta.get('format')!r})"
                    )
                return cls(
                    data["t"],
                    {name: data[f"state.{name}"] for name in meta["states"]},
                    {name: data[f"command.{name}"] for name in meta["commands"]},
                    meta.get("state_type", ""),
                    meta.get("command_type", ""),
                )
        except (KeyError, OSError, json.JSONDecodeError) as error:
            raise ValueError(f"{path}: not a readable steerlab trace ({error})") from error

    def __repr__(self) -> str:
        return (
            f"Trace(steps={self.steps}, states={list(self.states)}, commands={list(self.commands)})"
        )
