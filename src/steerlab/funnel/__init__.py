"""Funnelling control toward oriented targets (seed 003, Boulic 2005).

An accel-bounded unicycle (``steerlab.engines.Unicycle``) reaches a target position *and*
orientation without planning a trajectory: seek controllers (``SeekController``), the T_eta table
of seek's radial-tangential angles (``EtaTable``, built by simulation and cached on disk), the
funnelling update of Figure 4 and the mode relaxation of Figure 5 (``Funnel``, ``Mode``).
Parameters are records (``SeekControllerParams``, ``FunnelSettings``) whose fields may hold one
value per entity for a batch; one table serves every entity.

Examples
--------
>>> table = EtaTable.load_or_build(UnicycleParams(), SeekParams())  # doctest: +SKIP
>>> funnel = Funnel(table, target=(10.0, 5.0), course=math.pi / 2)  # doctest: +SKIP
>>> command = funnel.step(UnicycleState(), dt=1 / 60); funnel.mode  # doctest: +SKIP
"""

from steerlab.funnel.funnel import Funnel, FunnelOutput, FunnelSettings
from steerlab.funnel.funnelling import mu_bound
from steerlab.funnel.modes import Mode
from steerlab.funnel.seek import SeekController, SeekControllerParams, SeekParams, seek_run
from steerlab.funnel.table import EtaTable, TableFileError, TableGrid, default_cache_dir

__all__ = [
    "EtaTable",
    "Funnel",
    "FunnelOutput",
    "FunnelSettings",
    "Mode",
    "SeekController",
    "SeekControllerParams",
    "SeekParams",
    "TableFileError",
    "TableGrid",
    "default_cache_dir",
    "mu_bound",
    "seek_run",
]
