"""Trials of a path follower on a suite: what users, environments, plots and experiments share.

- ``suite``: suites of test paths with their terrain and walls (seed 001's Table I and the train
  suite, shipped; or a TOML/JSON file), ``load_suite``;
- ``generate``: seeded paths of seed 001's kinds (hills, narrow walled corridors, 90-degree
  corners, hairpins, S-bends, mixes), a suite file's ``[generated]`` table, and the shipped
  ``generated`` and ``train_generated`` suites (Table I version 2);
- ``trial``: one trial (a vehicle, a follower, a path, a seed), ``run_trial`` / ``simulate_trial``
  and ``drive_trial`` for any plant;
- ``observer``: the fixed observer that judges every trial alike (cross-track error, corridor,
  stuck events);
- ``followers``: the followers compared, by name (and the ablations ``baseline_pi``, ``ours_p``,
  only when named), and the tuned-parameter preset files;
- ``feasibility``: the best-case driver that decides, per (vehicle, path), whether a path can be
  completed at all (``feasible``, ``infeasible_pairs``);
- ``stalls``: stall episodes beside the observer's stuck events, per km and per minute of driving
  (``stall_counts``, ``trial_stalls``);
- ``circuit``: race circuits (a closed centre line with widths to its right and left, a race line;
  the TUM racetrack database's CSV), ``load_circuit``, and three shipped circuits.
"""
