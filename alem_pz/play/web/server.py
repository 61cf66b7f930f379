"""``alem-serve``: host one team game for people in browsers, with AI teammates in any seat.

    alem-serve --players 3 --humans 0,1 --ai greedy             # turn mode, as hot-seat
    alem-serve --humans 0,1 --ai random --tick-ms 250           # real time: NOOP if no key
    python -m alem_pz.play.web --port 8080 --record-dir games/
    alem-serve --humans 0,1 --ai llm --model qwen3 --base-url http://localhost:8001/v1
    alem-serve --humans 0 --ai greedy --llm-seats 2 --llm-config harness.json
    alem-serve --rooms 4 --humans 0,1 --ai greedy          # a lobby at / lists four rooms

Options mirror ``alem-play`` (``--players``, ``--humans``, ``--ai``, ``--difficulty``, ``--seed``,
``--comm-channels``, ``--max-steps``); ``--ai`` takes whatever ``alem-play`` takes
(``alem_pz.evaluation.policies``). The server listens on loopback unless ``--host`` says otherwise:
seat tokens keep people from acting for each other, but nothing authenticates who may take a free
seat, so expose it only on a network you trust. Only the server's own pages may open a game socket
(``--allow-origin`` adds a site) and only requests naming a served host are answered
(``--allow-host`` adds a name): ``alem_pz.play.web.guard``. Records go to ``--record-dir``.

``--ai llm`` (every AI seat) or ``--llm-seats`` (some of them) seats a language model through
the text harness: ``--llm-config`` is the harness JSON of ``alem-evaluate --policy llm`` and
``--model``, ``--base-url``, ``--api-key-env`` fill or override its client, as there.

``--rooms K`` hosts K rooms with these options, each its own game and record (under
``--record-dir``/roomN), on the same seed: every team gets the same worlds, so their records
compare. Rooms of one shape share the compiled step (``alem_pz.envs.kernels`` caches per shape).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import alem_core
from alem_pz.envs.kernels import compiled_core
from alem_pz.play.seats import parse_humans
from alem_pz.play.web.guard import LOOPBACK, MAX_MESSAGE_CHARS
from alem_pz.play.web.room import Room, RoomConfig


def parser() -> argparse.ArgumentParser:
    """The command line (module docstring)."""
    p = argparse.ArgumentParser(description="Serve one alem team game to browsers.")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--humans", default="all", help="seats open to people: 0,1 / all / none")
    p.add_argument(
        "--ai", default="random", help="policy of the other seats (as alem-play: random, "
        "greedy, text-rule, a checkpoint file or module:function)",
    )  # fmt: skip
    p.add_argument("--difficulty", default="easy")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--comm-channels", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=10000)
    p.add_argument(
        "--tick-ms", type=int, default=None, help="real-time mode: step every N ms "
        "(NOOP for anyone who has not chosen); default: turn mode, as hot-seat",
    )  # fmt: skip
    p.add_argument("--llm-seats", default="", help="AI seats a language model plays: 2 or 1,2")
    llm = p.add_argument_group("language-model seats (alem_pz.text.harness, as alem-evaluate)")
    llm.add_argument("--llm-config", default=None, help="harness JSON (clients per agent, ...)")
    llm.add_argument("--model", default=None)
    llm.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    llm.add_argument("--api-key-env", default=None, help="variable holding the API key")
    p.add_argument("--takeover-s", type=float, default=60.0, help="AI plays a seat whose "
                   "person has been away this long (until they rejoin)")  # fmt: skip
    p.add_argument("--tile", type=int, default=24, help="pixels per tile of the views")
    p.add_argument("--small", action="store_true", help="a 16 x 16 world of one floor "
                   "(compiles in seconds: for trying things out and load tests)")  # fmt: skip
    p.add_argument("--record-dir", default="games", help="where game records are written")
    p.add_argument("--rooms", type=int, default=1, help="K rooms, each its own game and "
                   "record (a lobby at / lists them)")  # fmt: skip
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--allow-host", action="append", default=[], help="another name pages "
                   "may use for this server (repeatable; loopback is always served)")  # fmt: skip
    p.add_argument("--allow-origin", action="append", default=[], help="another site whose "
                   "pages may open game sockets, as http://name:port (repeatable)")  # fmt: skip
    return p


def served_hosts(args: argparse.Namespace) -> tuple[str, ...]:
    """The names a request's ``Host`` may give: loopback, the address listened on (unless it is
    every address) and ``--allow-host``."""
    listened = () if args.host in ("0.0.0.0", "::") else (args.host,)
    return (*LOOPBACK, *listened, *args.allow_host)


def config_from(args: argparse.Namespace) -> RoomConfig:
    """The room options of parsed arguments."""
    difficulty: str | float = args.difficulty
    with contextlib.suppress(ValueError):  # "0.3" is an alpha, "easy" a preset
        difficulty = float(args.difficulty)
    if args.tick_ms is not None and args.tick_ms < 1:
        raise SystemExit(f"--tick-ms must be a positive number of milliseconds, got {args.tick_ms}")
    return RoomConfig(
        players=args.players, humans=parse_humans(args.humans), ai=args.ai,
        difficulty=difficulty, seed=args.seed, comm_channels=args.comm_channels,
        max_steps=args.max_steps, tick_ms=args.tick_ms, tile_px=args.tile,
        record_dir=args.record_dir, takeover_s=args.takeover_s, **_llm_options(args),
        static=alem_core.StaticParams(
            map_size=(16, 16), num_levels=1, player_count=args.players,
            num_comm_channels=args.comm_channels,
        ) if args.small else None,
    )  # fmt: skip


def _llm_options(args: argparse.Namespace) -> dict:
    """``llm`` and ``llm_seats`` of the room: the harness settings, loaded as alem-evaluate
    loads them, only when a seat uses them (so no other flag needs the openai package)."""
    seats = parse_humans(args.llm_seats) if args.llm_seats else ()
    if args.ai != "llm" and not seats:
        return {}
    from alem_pz.text.harness import load_config

    cli = dict(model=args.model, base_url=args.base_url, api_key_env=args.api_key_env)
    try:
        return {"llm": load_config(args.llm_config, **cli), "llm_seats": seats}
    except ValueError as error:
        raise SystemExit(f"language-model seats: {error} (give --model or --llm-config)") from None


def make_rooms(config: RoomConfig, count: int = 1) -> dict[str, Room]:
    """``count`` rooms named "1".."K" with ``config``; with more than one, room N records under
    ``record_dir/roomN`` (two rooms may start an episode in the same second on the same seed,
    which would give two records one name). All take one seed, drawn once if ``seed`` is None."""
    if count < 1:
        raise SystemExit(f"--rooms must be at least 1, got {count}")
    if count == 1:
        return {"1": Room(config)}
    seed = config.seed if config.seed is not None else int(time.time()) % 100000
    folder = Path(config.record_dir)
    return {
        str(n): Room(replace(config, seed=seed, record_dir=str(folder / f"room{n}")))
        for n in range(1, count + 1)
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Build the rooms (compiles the step: tens of seconds on first use), then serve them."""
    try:
        import uvicorn

        from alem_pz.play.web.app import make_app
    except ImportError as error:  # pragma: no cover - depends on the install
        raise SystemExit(
            f'alem-serve needs the web extra: pip install -e ".[web]" in a clone of alem ({error})'
        ) from None
    args = parser().parse_args(argv)
    print("compiling and warming up (tens of seconds on first use)")
    rooms = make_rooms(config_from(args), args.rooms)
    for room in rooms.values():  # one compile per shape: the others find it cached
        compiled_core(room.session.env.static).step.wait()  # the first key then steps at once
    hosts = served_hosts(args)
    if args.host not in LOOPBACK:
        print(
            f"warning: listening on {args.host}: anyone on the network who reaches it can take a "
            f"free seat; pages must address it as one of {', '.join(hosts)} (--allow-host)"
        )
    print(f"open http://{args.host}:{args.port}/  (records in {args.record_dir}/)")
    app = make_app(rooms, hosts=hosts, origins=args.allow_origin)
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="warning", ws_max_size=4 * MAX_MESSAGE_CHARS
    )


__all__ = ["config_from", "main", "make_rooms", "parser"]

if __name__ == "__main__":
    main()
