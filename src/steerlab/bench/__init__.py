"""The former home of steerlab's suites and measurements; each former module name still imports.

New code imports from where the modules live:

- ``steerlab.trials``: suites, trial driving, the observer, the follower registry, tuned presets;
- ``steerlab.runner``: the resumable runner of independent tasks;
- ``steerlab.experiments``: each seed's claims and figures (``fidelity``); Table I, the soak test,
  tuning and the external suite (``benchmark``).

``import steerlab.bench.suite`` (and every other name of ``MOVED``) gives the module at its new
place, the same module object, so code written against the former names keeps working.
"""

import importlib
import sys

MOVED = {
    "runner": "steerlab.runner",
    "suite": "steerlab.trials.suite",
    "trial": "steerlab.trials.trial",
    "metrics": "steerlab.trials.observer",
    "followers": "steerlab.trials.followers",
    "claims": "steerlab.experiments.fidelity.claims",
    "fidelity000": "steerlab.experiments.fidelity.point_laws",
    "fidelity000_line": "steerlab.experiments.fidelity.line_law",
    "fidelity000_oriented": "steerlab.experiments.fidelity.oriented_reach",
    "fidelity001": "steerlab.experiments.fidelity.path_follower",
    "fidelity002": "steerlab.experiments.fidelity.navigation",
    "fidelity003": "steerlab.experiments.fidelity.funnelling",
    "fidelity004": "steerlab.experiments.fidelity.halflife",
    "table1": "steerlab.experiments.benchmark.table1",
    "soak": "steerlab.experiments.benchmark.soak",
    "tune": "steerlab.experiments.benchmark.tune",
    "external": "steerlab.experiments.benchmark.external",
    "external_report": "steerlab.experiments.benchmark.external_report",
    "vehicle_classes": "steerlab.experiments.fidelity.vehicle_classes",
}

for _former, _module in MOVED.items():
    sys.modules[f"{__name__}.{_former}"] = importlib.import_module(_module)
    globals()[_former] = sys.modules[_module]
