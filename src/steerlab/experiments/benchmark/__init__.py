"""The benchmarks of path followers on the ``steerlab.trials`` layer: Table I (``table1``, with
``table1_figures``), the soak test (``soak``, with ``soak_figures``), vehicle-tuned parameters
(``tune``) and the external suite on third-party simulators (``external``, ``external_report``).
"""
