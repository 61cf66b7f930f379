"""Rule numbers of the boss floor, the graveyard (docs/rules/mobs.md#behaviour,
docs/rules/rewards.md#termination-and-truncation).

Read by the boss system, mob movement and damage, spawning, intrinsics and the text prompt.
"""

from __future__ import annotations

from alem_core.constants import Block

BOSS_FLOOR = 8
"""The graveyard: the Necromancer's floor. Mobs always chase there and hit 1.5x harder, needs do
not decay, and hostile mobs come only in waves."""
BOSS_DAMAGE_MULTIPLIER = 1.5
"""Mob melee and projectile damage on the boss floor."""
BOSS_WAVE_TIMER = 7
"""The wave timer at reset and after every hit on the vulnerable boss."""
BOSS_PROGRESS_TO_WIN = 8
"""Hits on the vulnerable boss that defeat it and win the episode (num_levels - 1 of the full
world; a counter, not a floor, so worlds without floor 8 never reach it)."""
BOSS_WAVE_DISTANCE = 6
"""Wave mobs appear on grave tiles at Euclidean distance <= 6 of an alive player."""
BOSS_WAVE_CHANCE_MULTIPLIER = 1000.0
"""Melee/ranged spawn chances during a wave are multiplied by 1000: a spawn is certain."""
GRAVE_BLOCKS = (Block.GRAVE, Block.GRAVE2, Block.GRAVE3)
"""The tiles boss waves spawn on."""
