"""The CAVLC tables of objsub_fast.ground_truth.h264.cavlc_tables are the standard's (H.264 clause 9.2).

Each VLC table is checked as a code: prefix-free, of the exact Kraft sum the standard's table
has (its only gap is named), decodable back by a small prefix-matching decoder; the spot values
are read off the standard. The quantisation constants are checked through a real forward
transform, quantisation, dequantisation and the standard's inverse transform.
"""
from __future__ import annotations

import doctest
import hashlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objsub_fast.ground_truth.h264 import cavlc_tables as T


def _code_book(code, length, *prefix):
    """{symbol index tuple: bit string} of one VLC context (the entries below ``prefix``)."""
    code, length = code[prefix], length[prefix]
    return {idx: f"{int(code[idx]):0{int(length[idx])}b}"
            for idx in zip(*np.nonzero(length))}


def _contexts():
    """Every VLC context: (name, code book, Kraft deficit, the all-zero word filling it)."""
    out = []
    # coeff_token: the all-zero word of 15, 13 and 10 bits is unused in the nC 0-1, 2-3 and
    # 4-7 tables; the 6-bit FLC leaves 000010 and 000111 free; the chroma DC table is full.
    for table, free in [(0, 15), (1, 13), (2, 10), (3, None), (4, 0)]:
        out.append((f"coeff_token[{table}]", _code_book(T.COEFF_TOKEN_CODE, T.COEFF_TOKEN_LEN,
                                                         table), free))
    for total_coeff in range(1, 16):  # only TotalCoeff 1 leaves a word free: 0000 0000 0
        out.append((f"total_zeros[{total_coeff}]", _code_book(
            T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, total_coeff), 9 if total_coeff == 1 else 0))
    for total_coeff in range(1, 4):
        out.append((f"total_zeros_dc[{total_coeff}]", _code_book(
            T.TOTAL_ZEROS_DC_CODE, T.TOTAL_ZEROS_DC_LEN, total_coeff), 0))
    for zeros_left in range(1, 8):  # zerosLeft > 6 leaves 0000 0000 000 free
        out.append((f"run_before[{zeros_left}]", _code_book(
            T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, zeros_left), 11 if zeros_left == 7 else 0))
    return out


CONTEXTS = _contexts()
IDS = [name for name, _, _ in CONTEXTS]


def _decode(book, bits):
    """Symbols of a bit string, by reading one bit at a time until a codeword matches."""
    by_word = {word: symbol for symbol, word in book.items()}
    symbols, word = [], ""
    for bit in bits:
        word += bit
        if word in by_word:
            symbols.append(by_word[word])
            word = ""
    assert word == "", f"{word!r} left over: not a codeword"
    return symbols


# ---------------------------------------------------------------------------- the arrays

ARRAYS = {
    "COEFF_TOKEN_CODE": (5, 4, 17), "COEFF_TOKEN_LEN": (5, 4, 17),
    "TOTAL_ZEROS_CODE": (16, 16), "TOTAL_ZEROS_LEN": (16, 16),
    "TOTAL_ZEROS_DC_CODE": (4, 4), "TOTAL_ZEROS_DC_LEN": (4, 4),
    "RUN_BEFORE_CODE": (8, 15), "RUN_BEFORE_LEN": (8, 15),
    "CBP_INTRA_CODE_NUM": (48,), "CBP_INTER_CODE_NUM": (48,), "ZIGZAG_4X4": (16,),
    "QUANT_MF": (6, 16), "DEQUANT_V": (6, 16), "CHROMA_QP": (52,),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_arrays_are_read_only_int32_of_the_contract_shape(name):
    array = getattr(T, name)
    assert array.dtype == np.int32 and array.shape == ARRAYS[name]
    assert not array.flags.writeable


def test_codes_fit_their_lengths():
    for code, length in [(T.COEFF_TOKEN_CODE, T.COEFF_TOKEN_LEN),
                         (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN),
                         (T.TOTAL_ZEROS_DC_CODE, T.TOTAL_ZEROS_DC_LEN),
                         (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN)]:
        assert (code >= 0).all() and (code < (1 << length)).all()
        assert (code[length == 0] == 0).all()


def test_coeff_token_has_a_word_exactly_for_the_possible_pairs():
    t1, tc = np.meshgrid(np.arange(4), np.arange(17), indexing="ij")
    possible = t1 <= np.minimum(tc, 3)
    for table in range(4):
        assert ((T.COEFF_TOKEN_LEN[table] > 0) == possible).all(), table
    assert ((T.COEFF_TOKEN_LEN[4] > 0) == (possible & (tc <= 4))).all()
    assert (T.COEFF_TOKEN_LEN[3][possible] == 6).all()  # the fixed-length table


def test_total_zeros_and_run_before_have_a_word_exactly_where_the_value_can_occur():
    tc, tz = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    assert ((T.TOTAL_ZEROS_LEN > 0) == ((tc >= 1) & (tz <= 16 - tc))).all()
    tc, tz = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    assert ((T.TOTAL_ZEROS_DC_LEN > 0) == ((tc >= 1) & (tz <= 4 - tc))).all()
    zl, run = np.meshgrid(np.arange(8), np.arange(15), indexing="ij")
    limit = np.where(zl == 7, 14, zl)
    assert ((T.RUN_BEFORE_LEN > 0) == ((zl >= 1) & (run <= limit))).all()


# ---------------------------------------------------------------------------- the codes

@pytest.mark.parametrize("name,book,free", CONTEXTS, ids=IDS)
def test_each_context_is_prefix_free(name, book, free):
    words = sorted(book.values())
    assert len(set(words)) == len(words), name
    for shorter, longer in zip(words, words[1:]):
        assert not longer.startswith(shorter), (name, shorter, longer)


@pytest.mark.parametrize("name,book,free", CONTEXTS, ids=IDS)
def test_kraft_sum_is_the_standards_and_its_gap_is_the_named_word(name, book, free):
    kraft = sum(Fraction(1, 2 ** len(word)) for word in book.values())
    if free is None:  # the 6-bit FLC: 62 of the 64 words, 000010 and 000111 unused
        assert kraft == Fraction(62, 64)
        assert {"000010", "000111"}.isdisjoint(book.values())
    elif free == 0:
        assert kraft == 1, name
    else:
        assert kraft == 1 - Fraction(1, 2 ** free), name
        gap = "0" * free  # free: neither a prefix of a codeword nor prefixed by one
        assert not any(word.startswith(gap) or gap.startswith(word) for word in book.values())


@pytest.mark.parametrize("name,book,free", CONTEXTS, ids=IDS)
def test_every_codeword_decodes_back(name, book, free):
    for symbol, word in book.items():
        assert _decode(book, word) == [symbol], name


@settings(max_examples=60, deadline=None)
@given(context=st.integers(0, len(CONTEXTS) - 1), picks=st.lists(st.integers(0, 10 ** 6),
                                                                  max_size=40))
def test_a_stream_of_codewords_decodes_to_its_symbols(context, picks):
    _, book, _ = CONTEXTS[context]
    symbols = sorted(book)
    sent = [symbols[p % len(symbols)] for p in picks]
    assert _decode(book, "".join(book[s] for s in sent)) == sent


# Read off the standard's tables: (table, TrailingOnes, TotalCoeff) -> bits.
COEFF_TOKEN_SPOTS = {
    (0, 0, 0): "1", (1, 0, 0): "11", (2, 0, 0): "1111", (3, 0, 0): "000011", (4, 0, 0): "01",
    (0, 1, 1): "01", (1, 1, 1): "10", (2, 1, 1): "1110", (3, 1, 1): "000001", (4, 1, 1): "1",
    (0, 0, 1): "000101", (3, 0, 1): "000000", (0, 2, 2): "001", (0, 3, 3): "00011",
    (4, 3, 4): "0000000", (4, 0, 4): "000010", (0, 1, 13): "000000000000001",
    (0, 0, 16): "0000000000000100", (1, 3, 15): "0000000000001", (2, 3, 16): "0000000010",
    (3, 3, 16): "111111", (3, 0, 16): "111100",
}


@pytest.mark.parametrize("index,bits", sorted(COEFF_TOKEN_SPOTS.items()))
def test_coeff_token_spot_values(index, bits):
    assert T.codeword(T.COEFF_TOKEN_CODE, T.COEFF_TOKEN_LEN, *index) == bits


@pytest.mark.parametrize("code,length,index,bits", [
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (1, 0), "1"),
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (1, 15), "000000001"),
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (2, 0), "111"),
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (7, 5), "11"),
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (11, 4), "1"),
    (T.TOTAL_ZEROS_CODE, T.TOTAL_ZEROS_LEN, (15, 0), "0"),
    (T.TOTAL_ZEROS_DC_CODE, T.TOTAL_ZEROS_DC_LEN, (1, 3), "000"),
    (T.TOTAL_ZEROS_DC_CODE, T.TOTAL_ZEROS_DC_LEN, (3, 1), "0"),
    (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, (1, 0), "1"),
    (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, (6, 1), "000"),
    (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, (6, 6), "100"),
    (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, (7, 0), "111"),
    (T.RUN_BEFORE_CODE, T.RUN_BEFORE_LEN, (7, 7), "0001"),
])
def test_total_zeros_and_run_before_spot_values(code, length, index, bits):
    assert T.codeword(code, length, *index) == bits


# The structural tests above cannot see two codewords of one length swapped within a context
# (the code stays prefix-free and complete), and the spot values sample only some entries. When
# these tables were written, every entry was compared with the VLC tables of two independent
# open decoders (FFmpeg's h264_cavlc.c and envytools' h264_cavlc.c): all 62 + 62 + 62 + 62 + 14
# coeff_token, 135 + 9 total_zeros and 42 run_before words agreed. This digest pins that checked
# state, so an edit to any word shows up here and must be re-checked against the standard.
VLC_DIGEST = "42d1994365631b33c493f35f48999e9b0fddfcf20fc667a71f695d9df6a2df6d"


def test_vlc_tables_are_the_cross_checked_ones():
    digest = hashlib.sha256()
    for name in ("COEFF_TOKEN_CODE", "COEFF_TOKEN_LEN", "TOTAL_ZEROS_CODE", "TOTAL_ZEROS_LEN",
                 "TOTAL_ZEROS_DC_CODE", "TOTAL_ZEROS_DC_LEN", "RUN_BEFORE_CODE",
                 "RUN_BEFORE_LEN"):
        digest.update(name.encode())
        digest.update(getattr(T, name).astype("<i4").tobytes())
    assert digest.hexdigest() == VLC_DIGEST


def test_coeff_token_table_follows_nc():
    expected = [0, 0, 1, 1, 2, 2, 2, 2] + [3] * 9
    assert [T.coeff_token_table(n) for n in range(17)] == expected
    assert T.coeff_token_table(-1) == 4
    for bad in (-2, 17):
        with pytest.raises(ValueError, match="n_c"):
            T.coeff_token_table(bad)


# ---------------------------------------------------------------------------- CBP, scan

def test_cbp_maps_are_permutations_with_the_standards_ends():
    for table in (T.CBP_INTRA_CODE_NUM, T.CBP_INTER_CODE_NUM):
        assert sorted(table.tolist()) == list(range(48))
    # Table 9-4: Intra codeNum 0 is cbp 47 and 3 is cbp 0; Inter codeNum 0 is cbp 0, 1 is 16
    # (chroma DC only), 12 is 47; the last codeNum 47 is cbp 41 in both columns.
    assert T.CBP_INTRA_CODE_NUM[47] == 0 and T.CBP_INTRA_CODE_NUM[0] == 3
    assert T.CBP_INTER_CODE_NUM[0] == 0 and T.CBP_INTER_CODE_NUM[16] == 1
    assert T.CBP_INTER_CODE_NUM[47] == 12
    assert T.CBP_INTRA_CODE_NUM[41] == 47 and T.CBP_INTER_CODE_NUM[41] == 47


def test_cbp_codes_are_shortest_for_the_common_patterns():
    # The inter column gives the empty pattern and single 8x8 blocks (luma bits 1, 2, 4, 8)
    # the codeNums 0..5 (1 to 5 bits of ue(v)); the intra column does so for "all coded".
    assert sorted(T.CBP_INTER_CODE_NUM[[0, 16, 1, 2, 4, 8]].tolist()) == list(range(6))
    assert T.CBP_INTRA_CODE_NUM[[47, 31, 15, 0]].tolist() == [0, 1, 2, 3]


def test_zigzag_is_the_frame_scan():
    scan = T.ZIGZAG_4X4.tolist()
    assert sorted(scan) == list(range(16)) and scan[:6] == [0, 1, 4, 8, 5, 2]
    rows, cols = np.divmod(T.ZIGZAG_4X4, 4)
    diagonal = rows + cols
    assert (np.diff(diagonal) >= 0).all()  # anti-diagonal after anti-diagonal
    for d in range(1, 6):  # alternating direction: odd diagonals go down-left
        on = rows[diagonal == d]
        assert (np.diff(on) > 0).all() if d % 2 else (np.diff(on) < 0).all()


# ---------------------------------------------------------------------------- quantisation

def test_dequant_v_is_norm_adjust():
    # normAdjust4x4 (clause 8.5.9): v[m][0] where both i, j are even, v[m][1] where both are
    # odd, v[m][2] otherwise.
    v = [(10, 16, 13), (11, 18, 14), (13, 20, 16), (14, 23, 18), (16, 25, 20), (18, 29, 23)]
    for m, (even, odd, mixed) in enumerate(v):
        block = T.DEQUANT_V[m].reshape(4, 4)
        assert (block[0::2, 0::2] == even).all() and (block[1::2, 1::2] == odd).all()
        assert (block[0::2, 1::2] == mixed).all() and (block[1::2, 0::2] == mixed).all()


def test_quant_mf_is_the_inverse_of_dequant_v_through_the_transform_gain():
    product = T.DEQUANT_V.astype(np.int64) * T.QUANT_MF * T.TRANSFORM_GAIN
    assert np.abs(product / 2 ** 21 - 1).max() < 2e-4
    assert (T.QUANT_MF == np.rint(2 ** 21 / (T.DEQUANT_V * T.TRANSFORM_GAIN))).all()
    assert T.QUANT_MF[0, [0, 5, 1]].tolist() == [13107, 5243, 8066]
    assert T.QUANT_MF[1, [0, 5, 1]].tolist() == [11916, 4660, 7490]


_FORWARD = np.array([[1, 1, 1, 1], [2, 1, -1, -2], [1, -1, -1, 1], [1, -2, 2, -1]])


def _inverse_1d(d):
    """The standard's 1-D inverse core transform (clause 8.5.12.2) along axis 0."""
    e0, e1 = d[0] + d[2], d[0] - d[2]
    e2, e3 = (d[1] >> 1) - d[3], d[1] + (d[3] >> 1)
    return np.stack([e0 + e3, e1 + e2, e1 - e2, e0 - e3])


def _round_trip(blocks, qp):
    """Forward transform, quantise with QUANT_MF, scale with DEQUANT_V, inverse transform."""
    coeffs = np.einsum("ij,njk,lk->nil", _FORWARD, blocks, _FORWARD).reshape(-1, 16)
    shift = 15 + qp // 6
    levels = np.sign(coeffs) * ((np.abs(coeffs) * T.QUANT_MF[qp % 6] + (1 << shift) // 3)
                                >> shift)
    scaled = ((levels * T.DEQUANT_V[qp % 6]) << (qp // 6)).reshape(-1, 4, 4)
    columns_done = _inverse_1d(scaled.transpose(1, 2, 0))        # [i, j, n], along i
    both_done = _inverse_1d(columns_done.transpose(1, 0, 2))     # [j, i, n], along j
    return (both_done + 32 >> 6).transpose(2, 1, 0)


@pytest.mark.parametrize("qp", [0, 4, 12, 28, 40])
def test_quantisation_round_trip_error_is_quantisation_noise(qp):
    rng = np.random.default_rng(qp)
    blocks = rng.integers(-255, 256, (500, 4, 4)).astype(np.int64)
    error = _round_trip(blocks, qp) - blocks
    q_step = 0.625 * 2 ** (qp / 6)
    # A uniform quantiser's noise is about q_step / sqrt(12); a multiplier off by a class
    # (say 25/20) would leave an error growing with the signal instead.
    assert np.sqrt((error ** 2).mean()) < max(0.45 * q_step, 0.4)
    assert np.abs(error).max() <= max(2 * q_step, 1)


def test_chroma_qp_table_8_15():
    qpc = T.CHROMA_QP.tolist()
    assert qpc[:30] == list(range(30))  # QPc = qPI below 30
    assert {30: 29, 34: 32, 39: 35, 44: 37, 51: 39} == {q: qpc[q] for q in (30, 34, 39, 44, 51)}
    assert all(0 <= b - a <= 1 for a, b in zip(qpc, qpc[1:]))  # never falls, never skips


def test_module_examples_run():
    result = doctest.testmod(T, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_numba_kernel_reads_the_tables_as_globals():
    numba = pytest.importorskip("numba")

    @numba.njit
    def coeff_token_bits(table, ones, total):
        return T.COEFF_TOKEN_CODE[table, ones, total], T.COEFF_TOKEN_LEN[table, ones, total]

    assert coeff_token_bits(0, 1, 13) == (1, 15)  # 0000 0000 0000 001
