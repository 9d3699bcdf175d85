"""Known-answer fixtures for the tests and benchmarks, kept out of the package's parts:

- ``controls``: positive and negative control videos of every rule kind (what the scorer must
  get right);
- ``outputs``: frames reshaped as models emit them (letterboxed, cropped, stretched, pushed in,
  grainy, tone-shifted, one object recoloured);
- ``openh264`` and ``browser``: a second H.264 decoder (Cisco's OpenH264) and a real browser
  (headless Chromium), the readers the project's own videos are checked with.

Nothing in the package's parts imports from here.
"""
