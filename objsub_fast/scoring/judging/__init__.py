"""Judging: what the track and the residual say about the task's invariants.

``expected`` builds the expected video (frame 0 through each frame's camera and tone) and
``residual`` holds every frame against it, within the video's own noise, into changed regions.
``invariants`` is the table of metrics, each a pure function of the track: ``final_match``,
``stability`` (with ``colour_change`` and ``votes``), ``continuity``, ``removal``;
``thresholds`` holds every threshold with its reason; ``metrics`` runs track, then measure;
``continuous`` gives the score in [0, 1].
"""
