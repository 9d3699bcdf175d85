"""Reading: a model's output as a player shows it, on the task's canvas.

``frames`` decodes a video, a folder of frames, an animated or still image or arrays, as a
player shows them (rotation, non-square pixels, frame timing), and samples each frame on the
canvas (``CanvasWarp``); ``register`` finds where the canvas lies in frame 0 from the task's
objects (``bars``: the guess without a task); ``recover`` reads a first frame's objects back and
``looks`` says what each look's pixels are. Around a run: ``question`` validates task records,
``layout`` and ``vbvr`` find (question, output) pairs in submitted folders, ``names`` makes their
names safe, ``limits`` bounds what one output may cost.
"""
