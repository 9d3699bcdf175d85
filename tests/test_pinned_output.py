"""The default output is pinned: SHA-256 of the frames, instance maps and records of fixed
batches, computed before the canvas scaling and the extended vocabulary were added. A change
here means every dataset made so far changes: bump the generator version instead."""
import hashlib
import json

import numpy as np
import pytest

from objsub_fast import generate_batch

PINNED = {
    "L1": "c5f3332063ad783628587ee1d7a49980ca5b9edc0c77b786f852aad1862a0129",
    "L2": "5686db15a1e2250a895570097a3d433b4da9dd3d80227a748c1ec191431438bc",
    "L3": "e61dfeeb713c1ad890b395b7e76d7faa1104931c827e34256459c68e46840ea1",
    "L4": "65231845686f8d4403d8b112c98893b0cf0523eeccb00ae94b913d081a527be0",
    "320x256": "3208a91c753e05ccc8943567e60e01022b47a9677799234df1a9b8e8cbb47d4a",
    "dense": "5f943c3e81841c0be5af7196d524b278fa79433212b2272afeb431f69235dcbb",
}
MIXED = ["L1", "L2", "L3", "L4"] * 25
BATCHES = {
    **{lv: dict(seeds=np.arange(200) * 7919 + 3, level=lv) for lv in ("L1", "L2", "L3", "L4")},
    # min(W, H) = 256: the scale factor is 1, so a wider canvas keeps its bytes too
    "320x256": dict(seeds=np.arange(100), level=MIXED, canvas_size=(320, 256),
                    num_objects=(5, 8)),
    "dense": dict(seeds=np.arange(100), level=MIXED, num_objects=(6, 12), object_size=(12, 30)),
}


def batch_digest(batch) -> str:
    h = hashlib.sha256()
    for frames in (batch.first_frames, batch.final_frames, batch.instance_maps):
        h.update(frames.tobytes())
    h.update(json.dumps(batch.tasks(), sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.parametrize("name", list(BATCHES))
def test_default_output_is_byte_identical(name):
    assert batch_digest(generate_batch(**BATCHES[name], masks=True)) == PINNED[name]
