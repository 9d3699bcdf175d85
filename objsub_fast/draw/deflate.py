"""Deterministic zlib streams (RFC 1950/1951) for PNG scanlines, in Numba.

The dataset promises that its bytes are a pure function of the configuration, on any worker,
process, machine or backend, so a PNG's bytes must be a pure function of its pixels. Deflate
libraries do not promise that: ISA-L, for one, runs CPU-specific code paths whose match choices
differ, and processes on one machine were measured writing different (valid) PNG bytes for the
same pixels. This encoder is plain integer code whose every choice depends on the input alone.

It is made for PNG-filtered images of flat colour, and does two things only:

- the only matches it codes are runs of one repeated byte, which is what a flat-colour image
  filtered with Up mostly is: the byte, one match at distance 1, then matches at distance FAR
  (faster to decode than overlapping copies at distance 1);
- every stream is one deflate block with one fixed Huffman code (sent in the block header as a
  dynamic code), built once from symbol counts measured on engine frames. So bits are written
  while scanning, in one pass, and a run that is known in advance (a row that repeats the one
  above) costs a few table lookups.

Any input is encoded correctly; data unlike engine frames merely compresses worse.

The tables built here are frozen into the compiled code of their callers, and Numba's cache
checks only a function's own file: after changing ``FAR`` or ``WEIGHTS``, delete
``objsub_fast/__pycache__/*.nb*`` (``tests/test_deflate.py`` pins the resulting bytes).
"""
from __future__ import annotations

import heapq

import numpy as np
from ..runtime._numba import kernel

__all__ = ["huffman_lengths", "canonical_codes", "max_stream_size", "compress"]

MIN_MATCH, MAX_MATCH = 3, 258
ADLER_MOD = 65521
#: Distance of a run's later matches. Copies at distance 1 are slow to decode (each byte waits
#: for the one just written); at 8 Pillow decodes our frames as fast as ISA-L's, for 30% more
#: bytes than distance 1 alone (measured in ``scripts/deflate_profile.py``).
FAR = 8
#: Longest run coded with one closed-form Adler-32 step (keeps its products within int64).
MAX_RUN = 1 << 22
#: Order in which the code-length code's lengths are sent (RFC 1951, 3.2.7).
CL_ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15)
#: Literal/length symbol weights the fixed code is built from: token counts measured on 600
#: engine frames (first, final and instance-map PNGs, Up filter; ``scripts/deflate_profile.py``),
#: in thousands and rounded. Every other symbol weighs 1, so any input can still be coded.
WEIGHTS = {0: 410, 261: 235, 285: 196, 2: 157, 1: 155, 284: 121, 255: 86, 128: 32, 91: 9,
           165: 9, **{s: 8 for s in range(257, 284) if s != 261},
           **{b: 3 for b in (3, 4, 5, 6, 7, 253, 254)}}


# --------------------------------------------------------------------------- the fixed code

def huffman_lengths(weights, limit: int) -> list[int]:
    """Code lengths of a Huffman code for positive ``weights``, at most ``limit`` bits long.

    Ties are broken by symbol number. Lengths beyond ``limit`` are folded back by moving codes
    down the tree until the Kraft sum is exactly 1, then assigned by frequency.
    """
    n = len(weights)
    if n == 1:
        return [1]
    heap = [(w, s, (s,)) for s, w in enumerate(weights)]  # (weight, tie-break, leaves)
    heapq.heapify(heap)
    depth = [0] * n
    tick = n
    while len(heap) > 1:
        w1, _, a = heapq.heappop(heap)
        w2, _, b = heapq.heappop(heap)
        for s in a + b:
            depth[s] += 1
        heapq.heappush(heap, (w1 + w2, tick, a + b))
        tick += 1
    count = [0] * (limit + 1)
    for d in depth:
        count[min(d, limit)] += 1
    kraft = sum(c << (limit - length) for length, c in enumerate(count) if length)
    while kraft > 1 << limit:
        count[limit] -= 1
        shorter = max(length for length in range(1, limit) if count[length])
        count[shorter] -= 1
        count[shorter + 1] += 2
        kraft -= 1
    by_weight = sorted(range(n), key=lambda s: (weights[s], s))  # rarest first
    lengths, k = [0] * n, 0
    for length in range(limit, 0, -1):
        for _ in range(count[length]):
            lengths[by_weight[k]] = length
            k += 1
    return lengths


def canonical_codes(lengths) -> list[int]:
    """Canonical Huffman codes (RFC 1951, 3.2.2), bit-reversed for least-significant-first
    output."""
    count = [0] * 16
    for length in lengths:
        count[length] += 1
    count[0] = 0
    next_code, code = [0] * 16, 0
    for bits in range(1, 16):
        code = (code + count[bits - 1]) << 1
        next_code[bits] = code
    codes = []
    for length in lengths:
        c = next_code[length]
        next_code[length] += length > 0
        codes.append(int(f"{c:0{length}b}"[::-1], 2) if length else 0)
    return codes


def _length_tables():
    """Per match length 3..258: literal/length symbol, extra-bit count and extra-bit value."""
    base = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
            115, 131, 163, 195, 227, 258]
    extra = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
    table = {}
    for code, (b, e) in enumerate(zip(base, extra)):  # 258 is code 285, not 284 + extra 31
        for length in range(b, min(b + (1 << e), MAX_MATCH + 1)):
            table[length] = (257 + code, e, length - b)
    return table


def _code_length_symbols(lengths):
    """Run-length code a code-length sequence as (symbol 0-18, extra value) pairs."""
    out, i = [], 0
    while i < len(lengths):
        v, run = lengths[i], 1
        while i + run < len(lengths) and lengths[i + run] == v:
            run += 1
        i += run
        if v == 0:
            while run >= 11:
                r = min(run, 138)
                out.append((18, r - 11))
                run -= r
            if run >= 3:
                out.append((17, run - 3))
                run = 0
        else:
            out.append((v, 0))
            run -= 1
            while run >= 3:
                r = min(run, 6)
                out.append((16, r - 3))
                run -= r
        out += [(v, 0)] * run
    return out


def _stream_start(lit_len, dist_len) -> tuple[bytes, int, int]:
    """zlib header and the block header (final block, dynamic code) sending the code, as
    (whole bytes, value of the remaining bits, how many)."""
    cl = _code_length_symbols(list(lit_len) + list(dist_len))
    cl_freq = [0] * 19
    for s, _ in cl:
        cl_freq[s] += 1
    used = [s for s in range(19) if cl_freq[s]]
    cl_len = [0] * 19
    for s, length in zip(used, huffman_lengths([cl_freq[s] for s in used], 7)):
        cl_len[s] = length
    cl_code = canonical_codes(cl_len)
    hclen = max(4, max(k + 1 for k, s in enumerate(CL_ORDER) if cl_len[s]))
    fields = [(1, 1), (2, 2), (len(lit_len) - 257, 5), (len(dist_len) - 1, 5), (hclen - 4, 4)]
    fields += [(cl_len[s], 3) for s in CL_ORDER[:hclen]]
    for s, extra in cl:
        fields.append((cl_code[s], cl_len[s]))
        if s >= 16:
            fields.append((extra, {16: 2, 17: 3, 18: 7}[s]))
    value, nbits = 0, 0
    for v, b in fields:
        value |= v << nbits
        nbits += b
    whole = nbits // 8
    # 0x78 0x01: deflate with a 32 KiB window, no dictionary (0x7801 % 31 == 0).
    return b"\x78\x01" + (value & ((1 << 8 * whole) - 1)).to_bytes(whole, "little"), \
        value >> 8 * whole, nbits - 8 * whole


def _distance_code(distance: int) -> tuple[int, int, int]:
    """(distance code, extra-bit count, extra-bit value) of a match distance (RFC 1951)."""
    base = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
            1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    code = max(c for c, b in enumerate(base) if b <= distance)
    return code, max(0, (code - 2) // 2), distance - base[code]


def _tables():
    lit_len = huffman_lengths([WEIGHTS.get(s, 1) for s in range(286)], 15)
    far_code, far_nbits, far_value = _distance_code(FAR)
    dist_len = [0] * (far_code + 1)  # two codes of one bit: distance 1 and FAR
    dist_len[0] = dist_len[far_code] = 1
    lit_code, dist_code = canonical_codes(lit_len), canonical_codes(dist_len)
    # Every token's whole bit string: a byte 0-255; 256 + a match length 3-258 at distance 1;
    # 512 + a match length at distance FAR (length code, extra bits, distance code, extra bits).
    code = np.zeros(512 + MAX_MATCH + 1, np.int64)
    bits = np.zeros(512 + MAX_MATCH + 1, np.int64)
    code[:256], bits[:256] = lit_code[:256], lit_len[:256]
    for length, (s, e, v) in _length_tables().items():
        head, head_bits = lit_code[s] | v << lit_len[s], lit_len[s] + e
        code[256 + length] = head | dist_code[0] << head_bits
        bits[256 + length] = head_bits + dist_len[0]
        code[512 + length] = (head | dist_code[far_code] << head_bits
                              | far_value << head_bits + dist_len[far_code])
        bits[512 + length] = head_bits + dist_len[far_code] + far_nbits
    start, tail, tail_bits = _stream_start(lit_len, dist_len)
    return (code, bits, np.frombuffer(start, np.uint8).copy(), tail, tail_bits,
            lit_code[256], lit_len[256])


TOKEN_CODE, TOKEN_BITS, START, START_TAIL, START_TAIL_BITS, END_CODE, END_BITS = _tables()


def max_stream_size(n: int) -> int:
    """Upper bound on the zlib stream size for ``n`` input bytes: at most 15 bits per byte
    (a literal; a match covers at least 3 bytes in at most 35 bits), the fixed start, and
    slack for the checksum and the bit writer's unconditional stores."""
    return 2 * n + START.shape[0] + 32


# --------------------------------------------------------------------------- writing
#
# A stream's state is a tuple (bit accumulator, bits in it (< 8), bytes written, Adler s1, s2)
# passed through and returned by value, so that the hot loops keep it in registers.

@kernel(inline="always")
def _emit(out, st, token):
    """Append the bits of ``token`` (a byte, or 256 + a match length); return the state.

    Six bytes are stored unconditionally and only the whole ones kept, so there is no
    unpredictable branch; a partial byte is stored again, completed, by a later token.
    """
    acc, nbits, pos, s1, s2 = st
    acc |= TOKEN_CODE[token] << nbits
    nbits += TOKEN_BITS[token]  # <= 7 + 35 bits
    for k in range(6):
        out[pos + k] = (acc >> (8 * k)) & 0xFF
    whole = nbits >> 3
    return acc >> (whole << 3), nbits & 7, pos + whole, s1, s2


@kernel(inline="always")
def _add_piece(out, st, b, r):
    """Append ``r`` (<= MAX_RUN) copies of byte ``b``: the byte, a match at distance 1, then
    matches at distance FAR."""
    acc, nbits, pos, s1, s2 = st
    s2 += r * s1 + b * ((r * (r + 1)) >> 1)  # Adler-32 over the run, in closed form
    s1 += r * b
    if s1 > (1 << 32) or s2 > (1 << 61):
        s1 %= ADLER_MOD
        s2 %= ADLER_MOD
    st = _emit(out, (acc, nbits, pos, s1, s2), b)
    rest = r - 1
    if rest >= MIN_MATCH:
        first = _first_match_length(rest)
        st = _emit(out, st, 256 + first)
        rest -= first
        while rest >= MIN_MATCH:
            length = _match_length(rest)
            st = _emit(out, st, 512 + length)
            rest -= length
    for _ in range(rest):
        st = _emit(out, st, b)
    return st


@kernel(inline="always")
def _first_match_length(rest):
    """Length of a run's first match (at distance 1), given ``rest`` (>= 3) bytes after its
    first: up to FAR - 1, so that the later matches, at distance FAR, copy from the run."""
    return min(rest, FAR - 1)


@kernel(inline="always")
def _match_length(rest):
    """Length of the next match of a run with ``rest`` (>= 3) bytes left after its first: up
    to 258, leaving at least 3 for a last match rather than 1-2 literals."""
    length = min(rest, MAX_MATCH)
    if rest != length and rest - length < MIN_MATCH:
        length = rest - MIN_MATCH
    return length


#: LOW_BYTES[p]: a uint64 with bytes 0..p set, to clear a word's bytes up to p.
LOW_BYTES = np.array([(1 << 8 * (p + 1)) - 1 for p in range(8)], np.uint64)
DEBRUIJN = 0x03F79D71B4CB0A89


def _debruijn_table():
    """Bit index of 2**k from ``(2**k * DEBRUIJN) >> 58`` (a de Bruijn sequence B(2, 6))."""
    table = np.full(64, -1, np.int64)
    for k in range(64):
        table[((1 << k) * DEBRUIJN % 2**64) >> 58] = k
    if (table < 0).any():
        raise AssertionError("DEBRUIJN is not a de Bruijn sequence")
    return table


BIT_INDEX = _debruijn_table()


@kernel(inline="always")
def _lowest_byte(x):
    """Index of the lowest nonzero byte of a nonzero uint64 (little-endian byte order)."""
    bit = x & (~x + np.uint64(1))
    return BIT_INDEX[(bit * np.uint64(DEBRUIJN)) >> np.uint64(58)] >> 3


@kernel(inline="always")
def _add_run(out, st, b, r):
    """Append ``r`` copies of byte ``b`` (in pieces of at most MAX_RUN)."""
    while r > MAX_RUN:
        st = _add_piece(out, st, b, MAX_RUN)
        r -= MAX_RUN
    return _add_piece(out, st, b, r)


@kernel(inline="always")
def _add_runs(out, st, data, words, end):
    """Append ``data[:end]``, found as runs of one byte.

    ``words`` is ``data`` viewed as little-endian uint64 and must cover ``end`` bytes (pad the
    data to whole words). Each word is compared with itself shifted by one byte, so the run
    boundaries in it are its nonzero bytes: a word costs one step, a boundary a few more.
    """
    if end == 0:
        return st
    start = 0
    before = np.uint64(data[0])  # the byte before each word (none before the first)
    for q in range((end + 7) >> 3):
        w = words[q]
        changes = w ^ ((w << np.uint64(8)) | before)  # byte p: data[p] != data[p - 1]
        before = w >> np.uint64(56)
        while changes != 0:
            p = _lowest_byte(changes)
            if q * 8 + p >= end:
                break
            st = _add_run(out, st, np.int64(data[start]), q * 8 + p - start)
            start = q * 8 + p
            changes &= ~LOW_BYTES[p]
    return _add_run(out, st, np.int64(data[start]), end - start)


@kernel(inline="always")
def _new_stream(out):
    """Write the zlib header and the block header into ``out``; return the stream state."""
    for k in range(START.shape[0]):
        out[k] = START[k]
    return (np.int64(START_TAIL), np.int64(START_TAIL_BITS), np.int64(START.shape[0]),
            np.int64(1), np.int64(0))


@kernel(inline="always")
def _end_stream(out, st):
    """Write the end of the block and the Adler-32 checksum; return the stream's length."""
    acc, nbits, pos, s1, s2 = st
    acc |= END_CODE << nbits
    nbits += END_BITS
    while nbits > 0:  # flush, padding the last byte with zeros
        out[pos] = acc & 0xFF
        acc >>= 8
        nbits -= 8
        pos += 1
    checksum = ((s2 % ADLER_MOD) << 16) | (s1 % ADLER_MOD)
    for shift in (24, 16, 8, 0):
        out[pos] = (checksum >> shift) & 0xFF
        pos += 1
    return pos


@kernel(nogil=True)
def _compress_into(data, words, out):
    return _end_stream(out, _add_runs(out, _new_stream(out), data, words, data.shape[0]))


def compress(data) -> bytes:
    """Return the zlib stream of ``data`` (bytes-like or a uint8 array): a pure function of it."""
    if isinstance(data, np.ndarray) and data.dtype != np.uint8:
        raise ValueError(f"data must be bytes or a uint8 array, got {data.dtype}")
    flat = np.frombuffer(np.ascontiguousarray(data) if isinstance(data, np.ndarray) else data,
                         np.uint8)
    padded = np.zeros(-(-flat.shape[0] // 8) * 8, np.uint8)  # whole, aligned words
    padded[:flat.shape[0]] = flat
    out = np.empty(max_stream_size(flat.shape[0]), np.uint8)
    size = _compress_into(padded[:flat.shape[0]], padded.view(np.uint64), out)
    return out[:size].tobytes()
