"""Measurements of steerlab against its seeds; nothing in the library imports this layer.

``steerlab.experiments.fidelity``: each seed's claims, one module per topic, each beside its
figures. ``steerlab.experiments.benchmark``: Table I, the soak test, tuning and the external suite,
run on the ``steerlab.trials`` layer.
"""
