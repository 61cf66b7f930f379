"""The env adapters: one alem world (or a batch of them) behind each RL library's interface.

``parallel`` (the PettingZoo ``ParallelEnv``, the env the others build on), ``single_agent``
(one Gymnasium controller for the whole team), ``vector`` (the batched Gymnasium ``VectorEnv``),
``sb3`` (Stable-Baselines3's ``VecEnv``), ``rllib`` (RLlib's env creator and mask keys),
``jaxmarl`` (JaxMARL's ``MultiAgentEnv``, pure JAX: reset and step under ``vmap`` and ``jit``),
``benchmarl`` (alem as a BenchMARL task),
``drills`` (the coordination drills as envs), ``registration`` (the env id, ``alem_pz.make``
and both registries). Their parts: ``arguments`` (every face's argument checks: a clear error
for a bad action, shape or parameter), ``observers`` (symbolic, pixel and text observations,
handed to the env), ``infos`` (the per-agent info layout), ``episode_score`` (the score on these
faces), ``rendering`` (pixels, frames and the window), ``kernels`` and ``packing`` (the jitted
calls on one packed state). No adapter imports play, evaluation or the text agents
(tests/test_layout.py).
"""
