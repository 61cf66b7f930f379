"""Parity tools: alem_core against the published package ``alem-env`` (a black box).

One command line, ``python -m bench.parity SUBCOMMAND`` (``--help`` on each)::

    compare  --peer|--ours --out F.npz | --compare P.npz O.npz   whole episodes (episodes.py)
    floors   --peer|--ours --out F.npz | --compare P.npz O.npz   floors 1-8, play or chests
    census   --peer|--ours --json F.json | --compare P.json O.json   world generation, 9 floors
    speed    [--quick] [--json F.json]                     timing of the published step
    probe handover|sapling|blocked|arrival --peer|--ours   hand-built scenarios (probes.py)
    probe death --peer|--ours                              what kills an agent (health_probes.py)
    probe needs --peer|--ours --out F.json | --compare P.json O.json   health under held needs

The modules:

* ``peer.py``: the one adapter for the published package (finding and starting its venv's
  interpreter, building, resetting and stepping its env, reading and setting its state fields);
  ``ours.py`` offers the same functions for alem_core, so each tool is written once;
* ``settings.py``: what the two adapters share (3 agents, "medium", block ids, melee hits);
  ``protocol.py``: those and the tools' own ids, and the pick of an adapter;
* ``tables.py``: health events from traces and the bootstrap table the comparisons print;
* ``episodes.py`` and ``episode_table.py``: whole episodes and their table;
* ``floors.py``: the per-floor comparison and its table; ``census.py``: world generation;
* ``speed.py``: timing of the published step (its JSON feeds ``bench.bench_alem --peer``);
* ``probes.py`` and ``health_probes.py``: the scenario, death and needs probes.

A ``--peer`` run (and ``speed``) needs the published package, which pins its own JAX and lives
in its own venv (``/work/peer_venv``); typed with alem's Python, the command re-runs itself
there. ``--compare`` runs in alem's interpreter (its statistics come from
``alem_pz.evaluation.stats``). Records of past runs are in ``bench/records/``.
"""
