"""The ground-truth video: transitions (the plan of frames), their encoding, colour
conversion (yuv), the video writer and the project's own H.264 encoder and MP4 muxer."""
