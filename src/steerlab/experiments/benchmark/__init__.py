"""The benchmarks of path followers on the ``steerlab.trials`` layer: Table I (``table1``, with
``table1_figures``), the soak test (``soak``, with ``soak_figures``), vehicle-tuned parameters
(``tune``), the external suite on third-party simulators (``external``, ``external_report``), and
intervals over paths by bootstrap (``stats``).
"""
