"""Every pass/fail threshold of the scorer, in one table (:data:`THRESHOLDS`).

Lengths in pixels are canvas pixels at 256x256 and scale with min(W, H)/256 of the task's
canvas (a 1024x1024 task allows four times the pixels); fractions are scale-free.

=====================  ========================  =======  ======================================
metric                 threshold                 value    why
=====================  ========================  =======  ======================================
registration           min_matched_fraction      0.5      frame 0 must show at least half of the
                                                          task's visible objects (and at least
                                                          two) where one mapping puts them, else
                                                          the video does not show the task's
                                                          first frame (an error record)
registration           max_residual_px           3.0      mean distance of the matched objects
                                                          from where the mapping puts them;
                                                          blur and codecs move centroids < 1 px
final_object_match     min_iou                   0.80     codec blur turns edge pixels into
                                                          *other* (still foreground): encoded
                                                          ground truth scores > 0.95; one
                                                          missing or extra object of 5-8 drops
                                                          IoU to about 0.85 or less. Measured
                                                          in camera-compensated coordinates
final_object_match     size_slack                0.05     a kept object settled near its place is
                                                          expected at its seen size within this
                                                          fraction of its drawn size (the +-3%
                                                          size jitter of model outputs), at its
                                                          drawn size beyond it
kept_object_stability  max_mean_displacement_px  3.0      per kept object, its mean centroid
                                                          displacement from where the camera
                                                          puts it, over the frames it is seen
                                                          in; the worst kept object decides
kept_object_stability  max_missing_frames        1        one dropped detection is tolerated
kept_object_stability  max_area_change           0.20     a kept object's ink area (its pixels
                                                          weighed by their ink, ``silhouette``),
                                                          over its ink area in the first frame it
                                                          was seen whole (the camera's zoom taken
                                                          out), may change by this fraction: a
                                                          person notices a quarter more or less;
                                                          jitter of +-3% of the size, a push-in
                                                          and codec blur move it by < 17%. Read
                                                          over the first and over the frame's
                                                          typical ink: a change shows in both
kept_object_stability  min_overlap               0.78     soft overlap of its silhouette with its
                                                          first one, moved onto its ink centroid,
                                                          scaled to its area and both seen
                                                          through a 1 px blur: below this it
                                                          changed, whatever the change (a morph).
                                                          Codec smear alone keeps 0.79 or more at
                                                          0.015 bit/pixel under a push-in, and
                                                          0.92 at the default quality
kept_object_stability  turn_overlap              0.85     ... below this, a change when a turn of
                                                          at least min_turn_deg or a stretch of
                                                          at least min_stretch (x over y, area
                                                          kept) explains the silhouette, raising
                                                          the overlap by min_explained_gain: a
                                                          40 deg turn or a 1.25 x 0.8 stretch
                                                          keeps 0.52-0.80 and is explained by
                                                          0.06-0.12 (0.78-0.80 at the very low
                                                          bitrate); codec smear by 0.055 at most
kept_object_stability  min_turn_deg              15       (see turn_overlap)
kept_object_stability  min_stretch               1.2      (see turn_overlap)
kept_object_stability  min_explained_gain        0.06     (see turn_overlap)
kept_object_stability  shape_overlap             0.85     a changed shape read-out counts only in
                                                          frames where the overlap is below this
                                                          and the read shape, drawn at the
                                                          object's size, overlaps the silhouette
                                                          by shape_margin more than its own first
                                                          one: the classifier misreads a small
                                                          object's blocky edges (a 21 px pyramid
                                                          as a cone), which leave it about as
                                                          near itself as the other shape; a
                                                          circle redrawn as a square of its area
                                                          overlaps its first silhouette 0.84 and
                                                          the square's drawing nearly 1
kept_object_stability  shape_margin              0.05     (see shape_overlap)
kept_object_stability  vote_frames               5        every read-out of a kept object (colour,
                                                          shape, size, overlap) is the median of
                                                          the 5 frames around it it is seen in: a
                                                          change must last 3 frames, as a
                                                          reappearance must; 1-2 frames of codec
                                                          smear on a small object are no change
kept_object_stability  max_colour_delta_e        6.0      a kept object's colour (the median of
                                                          its pixels classed its colour) may be
                                                          this far (CIEDE2000) from its first
                                                          colour brought through the scene's tone
                                                          in that frame (``colour_change``);
                                                          20% darker is 11-12 for red, green,
                                                          yellow, orange, 5.6-6.5 for purple and
                                                          blue. Each limit of the three is widened
                                                          by the codec's own drift on the object
                                                          (``codec_drift``): at a very low
                                                          bitrate under a zoom it carries a small
                                                          object's colour 7-30 in small steps
kept_object_stability  max_lightness_change      24       ... and its luma this many levels off
                                                          (a 20% darker yellow: 45)
kept_object_stability  max_saturation_change     48       ... and its chroma (max - min channel)
                                                          this many levels off: CIEDE2000 puts a
                                                          green a quarter of the way to white 2.2
                                                          from it, 64 levels less saturated
kept_object_stability  tone_min_span             48       the scene's tone is fitted per channel
                                                          as a line (gain, offset) through the
                                                          background and the other kept objects
                                                          when their first colours span at least
                                                          this many levels; else as a gain from
                                                          the background alone
kept_object_stability  tone_max_reference_off    12       a reference colour this many levels off
                                                          the line of the others is left out of
                                                          the fit: a second changed object must
                                                          not bend the scene's tone
kept_object_stability  tone_gain_range           0.5-2    a fitted tone line's gain is kept in
                                                          this range (a tone that halves or
                                                          doubles a channel is no white balance)
kept_object_stability  own_steps                 2        a change a model makes to an object's
                                                          colour takes at most this many
                                                          frame-to-frame steps (a cut, or a cut
                                                          and a settling frame): the codec's
                                                          drift on the object is what its other
                                                          steps add up to (``codec_drift``)
motion_continuity      max_step_fraction         0.10     per-frame step of any object, as a
                                                          fraction of the canvas diagonal (36 px
                                                          at 256x256); a slide-out moves < 20
                                                          px/frame, a teleport about half the
                                                          canvas. Tracked matches farther than
                                                          this are refused (the object is lost)
motion_continuity      reappear_min_run          3        a removed object absent for >= 3 frames
                                                          and then present for >= 3 frames has
                                                          reappeared (shorter runs are the
                                                          flicker of a fading object)
motion_continuity      max_global_change         0.05     fraction of canvas pixels changing
                                                          class between two frames outside every
                                                          object's zone: background, lighting,
                                                          scene cuts
motion_continuity      min_transition_frames     1        frames strictly between the first and
                                                          the final state of the removed objects
                                                          (their ink between 10% and 90% gone);
                                                          0 is a hard cut. Ground truth at 8 fps
                                                          (31 frames) has 11 (slide) to 19 (fade)
motion_continuity      transition_band           0.1-0.9  a transition frame has the removed
                                                          objects' ink between these fractions of
                                                          the way gone ...
motion_continuity      transition_noise_factor   1.5      ... the band narrowed at each end by
                                                          this multiple of the kept objects' ink
                                                          noise (their largest relative change
                                                          of ink, per px of size, at the smallest
                                                          removed object's size) ...
motion_continuity      max_transition_noise      0.3      ... by at most this much: a removal in
                                                          two steps or more (0.5; 0.33, 0.67)
                                                          always has a frame inside
motion_continuity      min_ink_gone              0.3      a video shows a removal (and a hard cut
                                                          can be judged) when at least this
                                                          fraction of the removed objects' ink
                                                          went away
motion_continuity      reappear_ink              0.75     a removed object whose square holds
                                                          this fraction of its first ink again
                                                          (or that is tracked again) is back
motion_continuity      zone_margin_px            3        the zones max_global_change leaves out
                                                          are the objects' boxes grown by this
                                                          many canvas px (not scaled: a codec's
                                                          ringing reaches as far at any size)
removal                remnant_floor_px          12       an object absent from the final frame
                                                          is removed only when its place (its
                                                          square where the camera puts it, and
                                                          where it was last seen) holds less ink
                                                          than this many pixels of the object's
                                                          typical ink (at 256; times the canvas's
                                                          area scale), over the pixels not read
                                                          as background: an 8-10 px remnant
                                                          leaves 40 or more even under heavy
                                                          block artefacts, the pale specks a
                                                          codec leaves in a removed object's
                                                          place a few. Canvas pixels, not a
                                                          fraction of the smallest object: a
                                                          remnant is judged as a person sees it
removal                max_ink_left              0.25     ... and at most this fraction of its
                                                          first ink (255 - min(R, G, B) over its
                                                          square) is left there: a fade stopped
                                                          half-way is not a removal, whatever
                                                          colour its pale remains read
removal                max_ink_falling           0.05     ... and its ink does not still fall by
                                                          more than this fraction of its first
                                                          ink over the last 3 frames (while more
                                                          than that is left): a removal still
                                                          under way in the final frame is not
                                                          done
added_objects          min_area_fraction         0.5      ink no task object explains (away from
                                                          every object's zone, of a task colour,
                                                          off the frame's border) counts when it
                                                          is at least half the smallest object:
                                                          codec specks, grain and blended edges
                                                          are far smaller
added_objects          min_frames                3        ... and stays this many frames (a
                                                          one-frame gap allowed; a shorter video
                                                          or a single image: all of it), as a
                                                          reappearance must (reappear_min_run)
added_objects          zone_growth_fraction      0.25     ink within an object's zone (its square
                                                          where the camera puts it and where it
                                                          was last tracked, grown by this
                                                          fraction of its size on every side) is
                                                          the object's own (its blur, its shadow)
camera_motion          max_zoom                  0.15     largest |scale - 1| of the camera over
                                                          the video; a push-in of 3-5% passes
camera_motion          max_pan_fraction          0.10     largest pan of the canvas centre, as a
                                                          fraction of the canvas diagonal
residual               slack_delta_e             1.0      each frame is held against its
                                                          expected frame (``residual``): a pixel
                                                          within its expected range (3x3, 5x5
                                                          under a moving camera) widened by this
                                                          much (CIELAB) is as expected
residual               floor_delta_e             8.0      a pixel is changed when its residual
                                                          (averaged over 3x3) is above this ...
residual               noise_factor              2.0      ... plus this times the noise of its
                                                          part of the frame: the other kept
                                                          objects' (their median), the
                                                          background's and its own before
                                                          anything happened ...
residual               noise_quantile            0.9      ... each read as this quantile of its
                                                          residual in that frame
residual               baseline_frames           4        an object's own noise: the least over
                                                          its first 4 judged frames after frame 0
                                                          (frame 1 among them: a change may
                                                          start in the others)
residual               ring_fraction             0.25     a kept object's part of the frame is its
                                                          square and a ring of this fraction of
                                                          its size around it: what appears right
                                                          beside it is its change
residual               free_growth_fraction      0.25     a removal target's square (where drawn
                                                          and where seen) grown by this fraction
                                                          of its size ...
residual               free_margin_px            8        ... and these px (scaled) is free: a
                                                          codec smears a removal over its blocks
                                                          (16 px at low bitrate)
residual               min_seconds               0.25     a pixel changed this long in a row is a
                                                          change (a person sees a quarter of a
                                                          second; a codec's one-frame glitch is
                                                          none); at the video's frame rate, 16
                                                          fps when the source has no times
residual               min_area_px               96       changed pixels joined across 2 px,
                                                          this many (at 256; scaled with the
                                                          canvas's area: 0.15% of it) are a
                                                          change: under a moving camera at a very
                                                          low bitrate a codec's block errors
                                                          join in patches of up to 45 px, and an
                                                          object redrawn 4% larger up to 80
residual               diffuse_pixel_floor       2.5      a change spread thin over one object (a
                                                          blur): its residual above this (what a
                                                          tone fit's error leaves on a fill) ...
residual               diffuse_floor             12.0     ... summed over its square and ring per
                                                          px of its outline, above this (a blur
                                                          of sigma 3: 5-19 at a very low bitrate;
                                                          an unchanged object jittering or under
                                                          a push-in there: up to 10) ...
residual               diffuse_factor            5.0      ... and this many times the other kept
                                                          objects' (median), its own before and
                                                          the background's, for min_seconds
residual               soft_floor                2.0      a kept object gone soft (``softness``):
                                                          its luma (levels, mean over its square
                                                          and ring) this far from its expected
                                                          luma at least (a codec's error on an
                                                          unchanged object is below 1-2) ...
residual               soft_ratio                1.0      ... nearer its expected luma blurred
                                                          (sigma 2 px) than its expected luma
                                                          (an unchanged object: 0-0.35 of it; a
                                                          blur of sigma 3: 1.1-3.5 times, also at
                                                          a very low bitrate) ...
residual               soft_factor               2.0      ... and this many times the other kept
                                                          objects' ratio (median) and its own
                                                          before, for min_seconds
=====================  ========================  =======  ======================================

``removed_object_count`` (objects absent from the final frame vs. the task's number) and
``rule_accuracy`` (absent set equals the target set) are exact; both count visible objects only
(an object a crop cuts off is "not visible", never "removed").
"""
from __future__ import annotations

__all__ = ["THRESHOLDS", "METRICS", "SHORT_NAMES"]

THRESHOLDS = {
    "registration": {"min_matched_fraction": 0.5, "max_residual_px": 3.0},
    "final_object_match": {"min_iou": 0.80, "size_slack": 0.05},
    "kept_object_stability": {"max_mean_displacement_px": 3.0, "max_missing_frames": 1,
                              "max_area_change": 0.20, "min_overlap": 0.78,
                              "turn_overlap": 0.85, "min_turn_deg": 15, "min_stretch": 1.2,
                              "min_explained_gain": 0.06,
                              "shape_overlap": 0.85, "shape_margin": 0.05, "vote_frames": 5,
                              "max_colour_delta_e": 6.0, "max_lightness_change": 24,
                              "max_saturation_change": 48,
                              "tone_min_span": 48.0, "tone_max_reference_off": 12.0,
                              "tone_gain_range": (0.5, 2.0), "own_steps": 2},
    "motion_continuity": {"max_step_fraction": 0.10, "reappear_min_run": 3,
                          "max_global_change": 0.05, "min_transition_frames": 1,
                          "transition_band": (0.1, 0.9), "transition_noise_factor": 1.5,
                          "max_transition_noise": 0.3, "min_ink_gone": 0.3,
                          "reappear_ink": 0.75, "zone_margin_px": 3},
    "removal": {"remnant_floor_px": 12, "max_ink_left": 0.25, "max_ink_falling": 0.05},
    "added_objects": {"min_area_fraction": 0.5, "min_frames": 3,
                      "zone_growth_fraction": 0.25},
    "camera_motion": {"max_zoom": 0.15, "max_pan_fraction": 0.10},
    "residual": {"slack_delta_e": 1.0, "floor_delta_e": 8.0, "noise_factor": 2.0,
                 "noise_quantile": 0.9, "baseline_frames": 4, "ring_fraction": 0.25,
                 "free_growth_fraction": 0.25, "min_seconds": 0.25, "min_area_px": 96,
                 "diffuse_pixel_floor": 2.5, "diffuse_floor": 12.0,
                 "diffuse_factor": 5.0, "free_margin_px": 8,
                 "soft_floor": 2.0, "soft_ratio": 1.0, "soft_factor": 2.0},
    "removed_object_count": {},
    "rule_accuracy": {},
}

#: The metrics of a result, in report order (registration is a precondition, not a metric).
METRICS = ("final_object_match", "kept_object_stability", "motion_continuity", "added_objects",
           "camera_motion", "removed_object_count", "rule_accuracy")

#: Short metric names for table columns.
SHORT_NAMES = {"final_object_match": "final_iou", "kept_object_stability": "kept",
               "motion_continuity": "motion", "added_objects": "added", "camera_motion": "camera",
               "removed_object_count": "count", "rule_accuracy": "rule"}
