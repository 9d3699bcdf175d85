"""An own H.264 encoder for ground-truth videos, and its MP4 muxer (``mp4``)."""
