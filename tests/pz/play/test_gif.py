"""GIF and PNG recordings of an episode (``alem_pz.play.gif``), on the small world."""

from __future__ import annotations

from tests.pz.conftest import SMALL


def test_recording_writes_a_gif(tmp_path):
    from PIL import Image

    from alem_pz.play.gif import record_episode, save_frames

    frames = record_episode(steps=3, policy="greedy", static=SMALL)
    path = save_frames(frames, tmp_path / "team.gif", fps=5)
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames == len(frames) == 4
        assert gif.size == (frames[0].shape[1], frames[0].shape[0])
    folder = save_frames(frames[:2], tmp_path / "pngs")
    assert sorted(f.name for f in folder.iterdir()) == ["frame_0000.png", "frame_0001.png"]
