"""Drawing and image codecs: sprites and stamping (render), lit solids, PNG and deflate."""
