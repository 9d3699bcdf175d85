"""An H.264 encoder for the project's ground-truth videos."""
