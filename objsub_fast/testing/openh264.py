"""A second H.264 decoder that shares no code with FFmpeg: Cisco's OpenH264 (``libopenh264``,
Debian's ``libopenh264-7``), called through ctypes.

OpenH264 is an independent implementation of H.264 (it is the decoder Firefox and WebRTC
use), so a stream that FFmpeg and OpenH264 both decode to the same pictures follows the
standard, not one decoder's reading of it. It decodes the tools this project's encoder uses:
CAVLC, I and P slices, and in a Main-profile stream explicit weighted prediction with a
reference list modification (the encoder's fades).

Only the decoder's C interface is used: ``WelsCreateDecoder``, then the object's virtual
methods ``Initialize``, ``DecodeFrameNoDelay``, ``FlushFrame`` and ``Uninitialize`` (slots 0,
3, 5 and 1 of its table), ``WelsDestroyDecoder``. A Main-profile stream comes out one
picture late (the decoder keeps a picture back for reordering, though this encoder never
reorders), and its last picture only when flushed. Error concealment is off, so a damaged
stream is an error, not a guessed picture.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

import numpy as np

__all__ = ["available", "library_name", "decode_annexb", "decode_mp4", "OpenH264Error"]

#: The library names tried, newest ABI first (Debian bookworm ships ``libopenh264.so.7``).
_NAMES = ("libopenh264.so.7", "libopenh264.so.6", "libopenh264.so")
_START_CODE = b"\0\0\0\1"


class OpenH264Error(RuntimeError):
    """OpenH264 refused a stream (its DECODING_STATE flags are in the message)."""


class _VideoProperty(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("eVideoBsType", ctypes.c_int)]


class _DecodingParam(ctypes.Structure):
    _fields_ = [("pFileNameRestructed", ctypes.c_char_p), ("uiCpuLoad", ctypes.c_uint),
                ("uiTargetDqLayer", ctypes.c_ubyte), ("eEcActiveIdc", ctypes.c_int),
                ("bParseOnly", ctypes.c_bool), ("sVideoProperty", _VideoProperty)]


class _SysMemBuffer(ctypes.Structure):
    _fields_ = [("iWidth", ctypes.c_int), ("iHeight", ctypes.c_int), ("iFormat", ctypes.c_int),
                ("iStride", ctypes.c_int * 2)]


class _BufferInfo(ctypes.Structure):
    _fields_ = [("iBufferStatus", ctypes.c_int), ("uiInBsTimeStamp", ctypes.c_ulonglong),
                ("uiOutYuvTimeStamp", ctypes.c_ulonglong), ("sSystemBuffer", _SysMemBuffer),
                ("pDst", ctypes.POINTER(ctypes.c_ubyte) * 3)]


_P = ctypes.c_void_p
_INITIALIZE = (0, ctypes.CFUNCTYPE(ctypes.c_long, _P, ctypes.POINTER(_DecodingParam)))
_UNINITIALIZE = (1, ctypes.CFUNCTYPE(ctypes.c_long, _P))
_DECODE_NO_DELAY = (3, ctypes.CFUNCTYPE(ctypes.c_int, _P, ctypes.c_char_p, ctypes.c_int,
                                        ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)),
                                        ctypes.POINTER(_BufferInfo)))
_FLUSH_FRAME = (5, ctypes.CFUNCTYPE(ctypes.c_int, _P,
                                    ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)),
                                    ctypes.POINTER(_BufferInfo)))


@lru_cache(maxsize=1)
def _library():
    """The loaded libopenh264 (None if none is installed)."""
    for name in (*_NAMES, ctypes.util.find_library("openh264")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.WelsCreateDecoder.argtypes = [ctypes.POINTER(_P)]
        lib.WelsCreateDecoder.restype = ctypes.c_long
        lib.WelsDestroyDecoder.argtypes = [_P]
        lib.WelsDestroyDecoder.restype = None
        lib._objsub_name = name
        return lib
    return None


def available() -> bool:
    """Whether libopenh264 can be loaded."""
    return _library() is not None


def library_name() -> str | None:
    """The file name of the loaded libopenh264 (None if there is none)."""
    lib = _library()
    return None if lib is None else lib._objsub_name


def _method(decoder, slot):
    """The virtual method in ``slot`` (index, prototype) of a decoder object."""
    index, prototype = slot
    table = ctypes.cast(decoder, ctypes.POINTER(ctypes.POINTER(_P))).contents
    return prototype(table[index])


def _planes(info: _BufferInfo):
    """Copies of the (Y, U, V) planes a decoded picture's buffer info points at."""
    buf = info.sSystemBuffer
    w, h = buf.iWidth, buf.iHeight
    out = []
    for plane, (pw, ph, stride) in enumerate(((w, h, buf.iStride[0]),
                                              (w // 2, h // 2, buf.iStride[1]),
                                              (w // 2, h // 2, buf.iStride[1]))):
        rows = np.ctypeslib.as_array(info.pDst[plane], shape=(ph * stride,))
        out.append(rows.reshape(ph, stride)[:, :pw].copy())
    return tuple(out)


def decode_annexb(access_units) -> list[tuple]:
    """Decode pictures with OpenH264: each item of ``access_units`` is one picture's NAL units
    (the parameter sets first); returns one (Y, U, V) uint8 tuple per picture.

    Raises OpenH264Error when a picture does not decode, RuntimeError when libopenh264 is
    missing.
    """
    lib = _library()
    if lib is None:
        raise RuntimeError("libopenh264 is not installed (Debian: apt-get install libopenh264-7)")
    decoder = _P()
    if lib.WelsCreateDecoder(ctypes.byref(decoder)) != 0 or not decoder:
        raise RuntimeError("WelsCreateDecoder failed")
    try:
        param = _DecodingParam()  # zero: AVC bitstream, error concealment off
        if _method(decoder, _INITIALIZE)(decoder, ctypes.byref(param)) != 0:
            raise RuntimeError("OpenH264 Initialize failed")
        decode = _method(decoder, _DECODE_NO_DELAY)
        pictures = []
        for number, nals in enumerate(access_units):
            data = b"".join(_START_CODE + bytes(nal) for nal in nals)
            dst = (ctypes.POINTER(ctypes.c_ubyte) * 3)()
            info = _BufferInfo()
            state = decode(decoder, data, len(data), dst, ctypes.byref(info))
            if state != 0:
                raise OpenH264Error(f"picture {number}: DECODING_STATE 0x{state:x}")
            if info.iBufferStatus == 1:
                pictures.append(_planes(info))
            elif number - len(pictures) > 0:   # more than the one picture kept back
                raise OpenH264Error(f"picture {number}: no picture came out")
        flush = _method(decoder, _FLUSH_FRAME)
        while len(pictures) < len(access_units):
            dst = (ctypes.POINTER(ctypes.c_ubyte) * 3)()
            info = _BufferInfo()
            state = flush(decoder, dst, ctypes.byref(info))
            if state != 0 or info.iBufferStatus != 1:
                raise OpenH264Error(f"picture {len(pictures)}: none came out when flushed "
                                    f"(DECODING_STATE 0x{state:x})")
            pictures.append(_planes(info))
        return pictures
    finally:
        _method(decoder, _UNINITIALIZE)(decoder)
        lib.WelsDestroyDecoder(decoder)


def decode_mp4(data: bytes) -> list[tuple]:
    """Decode the mp4 this project writes (``objsub_fast.ground_truth.h264.mp4``) with OpenH264: (Y, U, V)
    per picture. The container is read by :func:`objsub_fast.ground_truth.h264.mp4.read_track`, so
    nothing of FFmpeg is involved."""
    from ..ground_truth.h264.mp4 import read_track, sample_nals

    track = read_track(data)
    units = [sample_nals(sample) for sample in track["samples"]]
    if units:
        units[0] = [track["sps"], track["pps"], *units[0]]
    return decode_annexb(units)
