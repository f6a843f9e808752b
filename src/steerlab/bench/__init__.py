"""The former home of steerlab's suites and measurements; each former module name still imports.

New code imports from where the modules live:

- ``steerlab.trials``: suites, trial driving, the observer, the follower registry, tuned presets;
- ``steerlab.runner``: the resumable runner of independent tasks;
- ``steerlab.experiments``: each seed's claims and figures, Table I, the soak test, tuning and the
  external suite.

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
    "claims": "steerlab.experiments.claims",
    "fidelity000": "steerlab.experiments.point_laws",
    "fidelity000_line": "steerlab.experiments.line_law",
    "fidelity000_oriented": "steerlab.experiments.oriented_reach",
    "fidelity001": "steerlab.experiments.path_follower",
    "fidelity002": "steerlab.experiments.navigation",
    "fidelity003": "steerlab.experiments.funnelling",
    "fidelity004": "steerlab.experiments.halflife",
    "table1": "steerlab.experiments.table1",
    "soak": "steerlab.experiments.soak",
    "tune": "steerlab.experiments.tune",
    "external": "steerlab.experiments.external",
    "external_report": "steerlab.experiments.external_report",
    "vehicle_classes": "steerlab.experiments.vehicle_classes",
}

for _former, _module in MOVED.items():
    sys.modules[f"{__name__}.{_former}"] = importlib.import_module(_module)
    globals()[_former] = sys.modules[_module]
