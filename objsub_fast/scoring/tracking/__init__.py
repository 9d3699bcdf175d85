"""Tracking: one pass over the canvas frames into a ``Track``.

``model`` says what the scorer expects of one task; ``detect`` classifies pixels by colour and
matches components to the task's objects; ``camera`` estimates each frame's zoom and pan from the
kept objects; ``appearance`` reads colours as this video renders them; ``footprint`` and
``silhouette`` read each kept object's footprint against its first one; ``accounting`` keeps ink
no object explains; ``track`` drives them all, frame by frame, and feeds the residual.
"""
