"""PPO on alem in CleanRL's single-file style: PyTorch on the CPU, invalid-action masking, one
policy shared by every agent, over ``gymnasium.make_vec("alem/Coop-v0", ...)``.

    python3 -m venv .venv && .venv/bin/pip install -q -e ".[cleanrl]"
    .venv/bin/python examples/cleanrl_ppo.py --total-timesteps 300000 --out runs/ppo

The vector env's sub-envs are the N x P (world, agent) pairs, so a batch row is one agent's
step; ``--total-timesteps`` counts world steps (env-steps), as the benchmarks do. Rows are left
out of the loss where they carry no decision: the agent was dead (only NOOP is legal) or the
world was resetting (Gymnasium's NEXT_STEP autoreset ignores that step's actions). An agent's
death ends its GAE chain like a termination. Truncation is treated as termination: the default
horizon is 10,000 steps and training episodes end by death long before.

After training, the trained policy and the masked-random baseline are both scored with the
evaluation protocol (``alem_pz.evaluation.protocol``: world seeds 9999 + i, individual rewards, soft
specialisation on), on the same seeds and step cap, and the learning curve is saved as a PNG
with the two evaluations marked. ``--eval-only --checkpoint runs/ppo/agent.pt`` re-scores a
saved agent; ``load_policy(path)`` returns it as a policy for
``alem_pz.evaluation.protocol.evaluate``.

TensorBoard, as CleanRL logs: ``runs/<env>__<exp-name>__<seed>__<time>`` (``--runs-dir``) with
``charts/episodic_return``, ``charts/SPS``, ``charts/learning_rate``, ``losses/*`` and the
headline score, written with tensorboardX (in the ``cleanrl`` extra); ``tensorboard --logdir
runs`` shows them beside any CleanRL run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from torch import nn
from torch.distributions import Categorical

import alem_pz  # noqa: F401  (registers "alem/Coop-v0")
from alem_pz.evaluation.baselines import MaskedRandom
from alem_pz.evaluation.protocol import PROTOCOL_PARAMS, evaluate
from alem_pz.progress import bar as progress_bar

HEADLINE = "Team/achievement_pct"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--difficulty", default="medium")
    p.add_argument("--total-timesteps", type=int, default=300_000, help="world steps")
    p.add_argument("--num-worlds", type=int, default=32)
    p.add_argument("--num-steps", type=int, default=64, help="rollout length per update")
    p.add_argument("--learning-rate", type=float, default=5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.8)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--torch-threads", type=int, default=1, help="JAX steps the worlds meanwhile")
    p.add_argument("--eval-episodes", type=int, default=16)
    p.add_argument("--eval-max-steps", type=int, default=1000)
    p.add_argument("--max-steps", type=int, default=10_000, help="training episode horizon")
    p.add_argument("--small", action="store_true", help="16 x 16 one-floor world (smoke tests)")
    p.add_argument("--out", type=Path, default=Path("runs/ppo"))
    p.add_argument("--eval-only", action="store_true")
    p.add_argument("--checkpoint", type=Path, default=None)
    p.add_argument("--exp-name", default="cleanrl_ppo", help="the run name's experiment part")
    p.add_argument("--runs-dir", type=Path, default=Path("runs"), help="TensorBoard runs")
    p.add_argument("--no-progress", action="store_true", help="no tqdm bar on a terminal")
    return p.parse_args(argv)


def small_static():
    import alem_core

    return alem_core.StaticParams(player_count=3, map_size=(16, 16), num_levels=1)


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.trunk = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh()
        )
        self.actor = layer(hidden, num_actions, std=0.01)
        self.critic = layer(hidden, 1, std=1.0)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(x)).squeeze(-1)

    def get_action_and_value(self, x, mask, action=None):
        hidden = self.trunk(x)
        logits = self.actor(hidden).masked_fill(~mask, -1e8)  # invalid actions: probability 0
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(hidden).squeeze(-1)


def load_policy(path: str | Path):
    """A batched policy for ``alem_pz.evaluation.cli`` from a checkpoint (greedy-free: it
    samples)."""
    saved = torch.load(path, weights_only=False)
    agent = Agent(saved["obs_size"], saved["num_actions"], saved["hidden"])
    agent.load_state_dict(saved["state_dict"])
    agent.eval()
    generator = torch.Generator().manual_seed(0)

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.as_tensor(observations, dtype=torch.float32)
            logits = agent.actor(agent.trunk(x))
            logits = logits.masked_fill(~torch.as_tensor(masks, dtype=torch.bool), -1e8)
            probs = torch.softmax(logits, -1)
            return torch.multinomial(probs, 1, generator=generator).squeeze(-1).numpy()

    def reset(seed: int) -> None:
        generator.manual_seed(int(seed))

    policy.batched = True
    policy.reset = reset
    return policy


def make_envs(args: argparse.Namespace):
    static = small_static() if args.small else None
    envs = gymnasium.make_vec(
        "alem/Coop-v0",
        num_envs=args.num_worlds,
        vectorization_mode="vector_entry_point",
        players=3,
        difficulty=args.difficulty,
        max_steps=args.max_steps,
        params=PROTOCOL_PARAMS,
        static=static,
    )
    # Episode statistics (infos["episode"]) come from Gymnasium's own wrapper, as in CleanRL.
    return RecordEpisodeStatistics(envs)


def advantages(rewards, values, next_value, ends, gamma, lam):
    """GAE over (T, B); ``ends[t]`` cuts the chain after step t (termination or death)."""
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(next_value)
    for t in reversed(range(rewards.shape[0])):
        following = next_value if t == rewards.shape[0] - 1 else values[t + 1]
        keep = 1.0 - ends[t]
        delta = rewards[t] + gamma * following * keep - values[t]
        last = delta + gamma * lam * keep * last
        adv[t] = last
    return adv, adv + values


def ppo_update(agent, optimizer, batch, args) -> dict[str, float]:
    """CleanRL's clipped PPO update over the rows that carry a decision."""
    rows = torch.nonzero(batch["valid"]).squeeze(-1)
    stats = {"clipfrac": [], "approx_kl": [], "entropy": [], "policy_loss": [], "value_loss": []}
    for _ in range(args.update_epochs):
        for mb in torch.tensor_split(rows[torch.randperm(len(rows))], args.num_minibatches):
            if len(mb) < 2:
                continue
            _, logp, entropy, value = agent.get_action_and_value(
                batch["obs"][mb], batch["mask"][mb], batch["action"][mb]
            )
            log_ratio = logp - batch["logp"][mb]
            ratio = log_ratio.exp()
            adv = batch["adv"][mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef))
            v_loss = 0.5 * ((value - batch["ret"][mb]) ** 2).mean()
            loss = pg.mean() - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                stats["approx_kl"].append(((ratio - 1) - log_ratio).mean().item())
                stats["clipfrac"].append(((ratio - 1).abs() > args.clip_coef).float().mean().item())
                stats["entropy"].append(entropy.mean().item())
                stats["policy_loss"].append(pg.mean().item())
                stats["value_loss"].append(v_loss.item())
    return {k: float(np.mean(v)) for k, v in stats.items()}


def rollout(envs, agent, state, args):
    """``num_steps`` steps of every sub-env; returns the flat batch and the episodes that ended."""
    obs, mask, alive, resetting = state
    steps, width = args.num_steps, envs.num_envs
    buf = {k: [] for k in ("obs", "mask", "action", "logp", "value", "reward", "end", "valid")}
    finished = []
    for _ in range(steps):
        x, m = torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool)
        with torch.no_grad():
            action, logp, _, value = agent.get_action_and_value(x, m)
        obs, reward, term, trunc, infos = envs.step(action.numpy())
        now_alive = infos["alive"]
        ended = term | trunc
        row = {"obs": x, "mask": m, "action": action, "logp": logp, "value": value,
               "reward": torch.tensor(reward, dtype=torch.float32),
               "end": torch.as_tensor(ended | (alive & ~now_alive), dtype=torch.float32),
               "valid": torch.as_tensor(alive & ~resetting)}  # fmt: skip
        for key, value_ in row.items():
            buf[key].append(value_)
        if "episode" in infos:
            done = infos["_episode"]
            for row in np.flatnonzero(done):
                column = envs.unwrapped.score_keys.index(HEADLINE)
                finished.append(
                    (float(infos["episode"]["r"][row]), float(infos["score"][row, column]))
                )
        mask, alive, resetting = infos["action_mask"], now_alive, ended
    with torch.no_grad():
        next_value = agent.get_value(torch.as_tensor(obs))
    batch = {k: torch.stack(v) for k, v in buf.items()}
    adv, ret = advantages(
        batch["reward"], batch["value"], next_value, batch["end"], args.gamma, args.gae_lambda
    )
    flat = {k: v.reshape(steps * width, *v.shape[2:]) for k, v in batch.items()}
    flat["adv"], flat["ret"] = adv.reshape(-1), ret.reshape(-1)
    flat["valid"] = flat["valid"].bool()
    return flat, (obs, mask, alive, resetting), finished


def open_writer(args: argparse.Namespace):
    """CleanRL's ``SummaryWriter(f"runs/{run_name}")`` with the hyperparameters as text."""
    from tensorboardX import SummaryWriter

    run_name = f"alem-{args.difficulty}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(str(args.runs_dir / run_name))
    table = "\n".join(f"|{key}|{value}|" for key, value in vars(args).items())
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    return writer


def log_point(writer, point: dict, lr: float) -> None:
    """One update's scalars under CleanRL's tags, at ``global_step`` = env-steps."""
    step = point["env_steps"]
    writer.add_scalar("charts/learning_rate", lr, step)
    writer.add_scalar("charts/SPS", int(step / point["seconds"]), step)
    for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac"):
        writer.add_scalar(f"losses/{key}", point[key], step)
    if "episode_return" in point:
        writer.add_scalar("charts/episodic_return", point["episode_return"], step)
        writer.add_scalar(HEADLINE, point[HEADLINE], step)


def train(args: argparse.Namespace) -> tuple[Agent, list[dict]]:
    torch.manual_seed(args.seed)
    writer = open_writer(args)
    envs = make_envs(args)
    obs_size = envs.single_observation_space.shape[0]
    agent = Agent(obs_size, envs.single_action_space.n, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs, infos = envs.reset(seed=args.seed)
    state = (obs, infos["action_mask"], infos["alive"], np.zeros(envs.num_envs, bool))
    updates = max(1, args.total_timesteps // (args.num_steps * args.num_worlds))
    curve, start, env_steps = [], time.perf_counter(), 0
    per_update = args.num_steps * args.num_worlds
    bar = progress_bar(updates * per_update, "ppo", "env-step", not args.no_progress)
    for update in range(1, updates + 1):
        for group in optimizer.param_groups:  # CleanRL's linear learning-rate annealing
            group["lr"] = args.learning_rate * (1.0 - (update - 1.0) / updates)
        tick = time.perf_counter()
        batch, state, finished = rollout(envs, agent, state, args)
        tock = time.perf_counter()
        stats = ppo_update(agent, optimizer, batch, args)
        stats["rollout_s"], stats["update_s"] = tock - tick, time.perf_counter() - tock
        env_steps += args.num_steps * args.num_worlds
        elapsed = time.perf_counter() - start
        point = {"env_steps": env_steps, "seconds": elapsed, "episodes": len(finished), **stats}
        if finished:
            point["episode_return"] = float(np.mean([r for r, _ in finished]))
            point[HEADLINE] = float(np.mean([a for _, a in finished]))
        curve.append(point)
        log_point(writer, point, optimizer.param_groups[0]["lr"])
        bar.update(per_update)
        bar.write(  # above the bar on a terminal, a plain line otherwise
            f"update {update}/{updates} env-steps {env_steps} ({env_steps / elapsed:,.0f}/s) "
            f"episodes {len(finished)} return {point.get('episode_return', float('nan')):.2f} "
            f"{HEADLINE} {point.get(HEADLINE, float('nan')):.4f} kl {stats['approx_kl']:.4f} "
            f"rollout {stats['rollout_s']:.1f} s update {stats['update_s']:.1f} s"
        )
    bar.close()
    envs.close()
    writer.close()
    return agent, curve


def save_checkpoint(agent: Agent, args: argparse.Namespace, path: Path) -> None:
    obs_size = agent.trunk[0].in_features
    num_actions = agent.actor.out_features
    torch.save(
        {"state_dict": agent.state_dict(), "obs_size": obs_size, "num_actions": num_actions,
         "hidden": args.hidden, "args": {k: str(v) for k, v in vars(args).items()}},
        path,
    )  # fmt: skip


def score(policy, name: str, args: argparse.Namespace) -> dict:
    summary = evaluate(
        policy,
        episodes=args.eval_episodes,
        max_steps=args.eval_max_steps,
        difficulties=[args.difficulty],
        static=small_static() if args.small else None,
        progress=False,
        policy_name=name,
    )["results"][args.difficulty]
    return {
        "mean_episode_return": summary["mean_episode_return"],
        "mean_episode_length": summary["mean_episode_length"],
        HEADLINE: summary["headline"][HEADLINE],
    }


def smoothed(curve: list[dict], key: str, window: int = 10) -> tuple[list, list]:
    """Episode-weighted mean of ``key`` over the last ``window`` updates, per update."""
    xs, ys = [], []
    for i, point in enumerate(curve):
        recent = [p for p in curve[max(0, i - window + 1) : i + 1] if key in p]
        if recent:
            weights = [p["episodes"] for p in recent]
            xs.append(point["env_steps"])
            ys.append(float(np.average([p[key] for p in recent], weights=weights)))
    return xs, ys


def plot(curve: list[dict], evals: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, key, label in zip(
        axes, ("episode_return", HEADLINE), ("episode return", HEADLINE), strict=True
    ):
        raw = [(p["env_steps"], p[key]) for p in curve if key in p]
        ax.plot(*zip(*raw, strict=True), color="C0", alpha=0.25, lw=0.8)
        ax.plot(*smoothed(curve, key), color="C0", label="PPO, training episodes (10-update mean)")
        for name, style, color in (("masked-random", "--", "k"), ("PPO", ":", "C1")):
            value = (
                evals[name][HEADLINE]["mean"]
                if key == HEADLINE
                else evals[name]["mean_episode_return"]
            )
            ax.axhline(value, ls=style, color=color, label=f"{name}, protocol seeds")
        ax.set_xlabel("env-steps (world steps)")
        ax.set_ylabel(label)
        ax.legend(fontsize=8)
    seconds = curve[-1]["seconds"]
    fig.suptitle(f"PPO on alem ({curve[-1]['env_steps']:,} env-steps in {seconds:.0f} s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    curve: list[dict] = []
    if args.eval_only:
        policy = load_policy(args.checkpoint or args.out / "agent.pt")
    else:
        agent, curve = train(args)
        save_checkpoint(agent, args, args.out / "agent.pt")
        policy = load_policy(args.out / "agent.pt")
    evals = {
        "PPO": score(policy, "ppo", args),
        "masked-random": score(MaskedRandom(0), "random", args),
    }
    report = {"args": {k: str(v) for k, v in vars(args).items()}, "curve": curve, "eval": evals}
    (args.out / "results.json").write_text(json.dumps(report, indent=1))
    if curve:
        report["train_env_steps_per_s"] = curve[-1]["env_steps"] / curve[-1]["seconds"]
        plot(curve, evals, args.out / "learning_curve.png")
    for name, result in evals.items():
        print(name, json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
