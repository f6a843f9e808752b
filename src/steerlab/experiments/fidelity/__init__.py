"""Each seed's claims measured by simulation, one module per topic, each beside its figures.

``point_laws``, ``line_law``, ``oriented_reach`` (seed 000's guidance laws), ``path_follower`` and
``vehicle_classes`` (seed 001), ``navigation`` (seed 002), ``funnelling`` (seed 003), ``halflife``
(seed 004); ``<topic>_figures`` draws the topic's figures; ``claims`` is the record every topic
returns, rendered into ``docs/fidelity.md`` by ``steerlab fidelity N``.
"""
