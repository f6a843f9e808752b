"""Measurements of steerlab against its seeds, each beside its figures; nothing below imports it.

One module per topic: ``point_laws``, ``line_law``, ``oriented_reach`` (seed 000's guidance
laws), ``path_follower`` and ``vehicle_classes`` (seed 001), ``navigation`` (seed 002),
``funnelling`` (seed 003), ``halflife`` (seed 004); each ``<topic>_figures`` module draws that
topic's figures. ``table1`` (with ``table1_figures``), ``soak`` (with ``soak_figures``), ``tune``
and ``external`` (with ``external_report``) run and report the benchmarks of path followers on
the ``steerlab.trials`` layer; ``claims`` is the record every topic returns.
"""
