"""The ground-truth video, one module a job: ``spec`` (what a video is, the settings that decide
its bytes), ``object_look`` (how objects are drawn), ``transition_plan`` (what each frame shows)
and ``transitions`` (drawing it), ``yuv`` (colour conversion, the picture in YUV),
``objsub_encoder`` (the own encoder's driver; ``transition_video`` its compiled loop over a
plan; ``h264/`` the encoder and MP4 muxer), ``x264`` (the libx264 path), ``video`` (encoding a
batch's videos, checking them; its public names as before) and ``model_output`` (writing files
like a model's output)."""
