"""The fixed tables an H.264 CAVLC encoder needs, from ISO/IEC 14496-10 (ITU-T H.264).

The variable-length codes of clause 9.2 are written below as the standard prints them: one
string of bits per entry (spaces only group the bits for reading), laid out like the standard's
tables. They are parsed once, at import, into ``int32`` arrays: ``*_CODE`` holds a codeword's
value with its first bit as the most significant one, ``*_LEN`` its length in bits, and a
length of 0 marks a combination the standard has no codeword for. An encoder writes the low
``LEN`` bits of ``CODE``, most significant first.

Besides the VLC tables: the me(v) mapping of ``coded_block_pattern`` inverted for the encoder
(Table 9-4), the 4x4 zig-zag scan (Table 8-13), the quantisation multipliers (normAdjust4x4 of
clause 8.5.9 and their encoder-side inverse) and the chroma QP mapping (Table 8-15).

Examples
--------
>>> from objsub_fast.ground_truth.h264 import cavlc_tables as t
>>> int(t.COEFF_TOKEN_CODE[0, 1, 1]), int(t.COEFF_TOKEN_LEN[0, 1, 1])  # the word 01
(1, 2)
>>> t.codeword(t.TOTAL_ZEROS_CODE, t.TOTAL_ZEROS_LEN, 3, 6)
'100'
>>> t.ZIGZAG_4X4[:6].tolist()
[0, 1, 4, 8, 5, 2]
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "COEFF_TOKEN_CODE", "COEFF_TOKEN_LEN", "TOTAL_ZEROS_CODE", "TOTAL_ZEROS_LEN",
    "TOTAL_ZEROS_DC_CODE", "TOTAL_ZEROS_DC_LEN", "RUN_BEFORE_CODE", "RUN_BEFORE_LEN",
    "CBP_INTRA_CODE_NUM", "CBP_INTER_CODE_NUM", "ZIGZAG_4X4", "QUANT_MF", "DEQUANT_V",
    "TRANSFORM_GAIN", "CHROMA_QP", "coeff_token_table", "codeword",
]

# --------------------------------------------------------------------------- Table 9-5
# coeff_token. One line per (TrailingOnes, TotalCoeff); the columns are the tables chosen by
# nC: 0 <= nC < 2 | 2 <= nC < 4 | 4 <= nC < 8 | 8 <= nC | nC == -1 (chroma DC, 4:2:0).
# "-" where the column has no codeword (the chroma DC table stops at TotalCoeff 4).
_COEFF_TOKEN_TEXT = """
0  0 | 1                   | 11                 | 1111          | 0000 11 | 01
0  1 | 0001 01             | 0010 11            | 0011 11       | 0000 00 | 0001 11
1  1 | 01                  | 10                 | 1110          | 0000 01 | 1
0  2 | 0000 0111           | 0001 11            | 0010 11       | 0001 00 | 0001 00
1  2 | 0001 00             | 0011 1             | 0111 1        | 0001 01 | 0001 10
2  2 | 001                 | 011                | 1101          | 0001 10 | 001
0  3 | 0000 0011 1         | 0000 111           | 0010 00       | 0010 00 | 0000 11
1  3 | 0000 0110           | 0010 10            | 0110 0        | 0010 01 | 0000 011
2  3 | 0000 101            | 0010 01            | 0111 0        | 0010 10 | 0000 010
3  3 | 0001 1              | 0101               | 1100          | 0010 11 | 0001 01
0  4 | 0000 0001 11        | 0000 0111          | 0001 111      | 0011 00 | 0000 10
1  4 | 0000 0011 0         | 0001 10            | 0101 0        | 0011 01 | 0000 0011
2  4 | 0000 0101           | 0001 01            | 0101 1        | 0011 10 | 0000 0010
3  4 | 0000 11             | 0100               | 1011          | 0011 11 | 0000 000
0  5 | 0000 0000 111       | 0000 0100          | 0001 011      | 0100 00 | -
1  5 | 0000 0001 10        | 0000 110           | 0100 0        | 0100 01 | -
2  5 | 0000 0010 1         | 0000 101           | 0100 1        | 0100 10 | -
3  5 | 0000 100            | 0011 0             | 1010          | 0100 11 | -
0  6 | 0000 0000 0111 1    | 0000 0011 1        | 0001 001      | 0101 00 | -
1  6 | 0000 0000 110       | 0000 0110          | 0011 10       | 0101 01 | -
2  6 | 0000 0001 01        | 0000 0101          | 0011 01       | 0101 10 | -
3  6 | 0000 0100           | 0010 00            | 1001          | 0101 11 | -
0  7 | 0000 0000 0101 1    | 0000 0001 111      | 0001 000      | 0110 00 | -
1  7 | 0000 0000 0111 0    | 0000 0011 0        | 0010 10       | 0110 01 | -
2  7 | 0000 0000 101       | 0000 0010 1        | 0010 01       | 0110 10 | -
3  7 | 0000 0010 0         | 0001 00            | 1000          | 0110 11 | -
0  8 | 0000 0000 0100 0    | 0000 0001 011      | 0000 1111     | 0111 00 | -
1  8 | 0000 0000 0101 0    | 0000 0001 110      | 0001 110      | 0111 01 | -
2  8 | 0000 0000 0110 1    | 0000 0001 101      | 0001 101      | 0111 10 | -
3  8 | 0000 0001 00        | 0000 100           | 0110 1        | 0111 11 | -
0  9 | 0000 0000 0011 11   | 0000 0000 1111     | 0000 1011     | 1000 00 | -
1  9 | 0000 0000 0011 10   | 0000 0001 010      | 0000 1110     | 1000 01 | -
2  9 | 0000 0000 0100 1    | 0000 0001 001      | 0001 010      | 1000 10 | -
3  9 | 0000 0000 100       | 0000 0010 0        | 0011 00       | 1000 11 | -
0 10 | 0000 0000 0010 11   | 0000 0000 1011     | 0000 0111 1   | 1001 00 | -
1 10 | 0000 0000 0010 10   | 0000 0000 1110     | 0000 1010     | 1001 01 | -
2 10 | 0000 0000 0011 01   | 0000 0000 1101     | 0000 1101     | 1001 10 | -
3 10 | 0000 0000 0110 0    | 0000 0001 100      | 0001 100      | 1001 11 | -
0 11 | 0000 0000 0001 111  | 0000 0000 1000     | 0000 0101 1   | 1010 00 | -
1 11 | 0000 0000 0001 110  | 0000 0000 1010     | 0000 0111 0   | 1010 01 | -
2 11 | 0000 0000 0010 01   | 0000 0000 1001     | 0000 1001     | 1010 10 | -
3 11 | 0000 0000 0011 00   | 0000 0001 000      | 0000 1100     | 1010 11 | -
0 12 | 0000 0000 0001 011  | 0000 0000 0111 1   | 0000 0100 0   | 1011 00 | -
1 12 | 0000 0000 0001 010  | 0000 0000 0111 0   | 0000 0101 0   | 1011 01 | -
2 12 | 0000 0000 0001 101  | 0000 0000 0110 1   | 0000 0110 1   | 1011 10 | -
3 12 | 0000 0000 0010 00   | 0000 0000 1100     | 0000 1000     | 1011 11 | -
0 13 | 0000 0000 0000 1111 | 0000 0000 0101 1   | 0000 0011 01  | 1100 00 | -
1 13 | 0000 0000 0000 001  | 0000 0000 0101 0   | 0000 0011 1   | 1100 01 | -
2 13 | 0000 0000 0001 001  | 0000 0000 0100 1   | 0000 0100 1   | 1100 10 | -
3 13 | 0000 0000 0001 100  | 0000 0000 0110 0   | 0000 0110 0   | 1100 11 | -
0 14 | 0000 0000 0000 1011 | 0000 0000 0011 1   | 0000 0010 01  | 1101 00 | -
1 14 | 0000 0000 0000 1110 | 0000 0000 0010 11  | 0000 0011 00  | 1101 01 | -
2 14 | 0000 0000 0000 1101 | 0000 0000 0011 0   | 0000 0010 11  | 1101 10 | -
3 14 | 0000 0000 0001 000  | 0000 0000 0100 0   | 0000 0010 10  | 1101 11 | -
0 15 | 0000 0000 0000 0111 | 0000 0000 0010 01  | 0000 0001 01  | 1110 00 | -
1 15 | 0000 0000 0000 1010 | 0000 0000 0010 00  | 0000 0010 00  | 1110 01 | -
2 15 | 0000 0000 0000 1001 | 0000 0000 0010 10  | 0000 0001 11  | 1110 10 | -
3 15 | 0000 0000 0000 1100 | 0000 0000 0000 1   | 0000 0001 10  | 1110 11 | -
0 16 | 0000 0000 0000 0100 | 0000 0000 0001 11  | 0000 0000 01  | 1111 00 | -
1 16 | 0000 0000 0000 0110 | 0000 0000 0001 10  | 0000 0001 00  | 1111 01 | -
2 16 | 0000 0000 0000 0101 | 0000 0000 0001 01  | 0000 0000 11  | 1111 10 | -
3 16 | 0000 0000 0000 1000 | 0000 0000 0001 00  | 0000 0000 10  | 1111 11 | -
"""

# --------------------------------------------------------------------------- Tables 9-7, 9-8
# total_zeros of 4x4 blocks (maxNumCoeff 15 or 16), as the standard prints them: one line per
# total_zeros value, one column per tzVlcIndex (= TotalCoeff); Table 9-7 holds tzVlcIndex 1..7,
# Table 9-8 holds 8..15.
_TOTAL_ZEROS_TEXT_9_7 = """
tz | 1           | 2       | 3       | 4      | 5      | 6       | 7
0  | 1           | 111     | 0101    | 0001 1 | 0101   | 0000 01 | 0000 01
1  | 011         | 110     | 111     | 111    | 0100   | 0000 1  | 0000 1
2  | 010         | 101     | 110     | 0101   | 0011   | 111     | 101
3  | 0011        | 100     | 101     | 0100   | 111    | 110     | 100
4  | 0010        | 011     | 0100    | 110    | 110    | 101     | 011
5  | 0001 1      | 0101    | 0011    | 101    | 101    | 100     | 11
6  | 0001 0      | 0100    | 100     | 100    | 100    | 011     | 010
7  | 0000 11     | 0011    | 011     | 0011   | 011    | 010     | 0001
8  | 0000 10     | 0010    | 0010    | 011    | 0010   | 0001    | 001
9  | 0000 011    | 0001 1  | 0001 1  | 0010   | 0000 1 | 001     | 0000 00
10 | 0000 010    | 0001 0  | 0001 0  | 0001 0 | 0001   | 0000 00 | -
11 | 0000 0011   | 0000 11 | 0000 01 | 0000 1 | 0000 0 | -       | -
12 | 0000 0010   | 0000 10 | 0000 1  | 0000 0 | -      | -       | -
13 | 0000 0001 1 | 0000 01 | 0000 00 | -      | -      | -       | -
14 | 0000 0001 0 | 0000 00 | -       | -      | -      | -       | -
15 | 0000 0000 1 | -       | -       | -      | -      | -       | -
"""
_TOTAL_ZEROS_TEXT_9_8 = """
tz | 8       | 9       | 10     | 11   | 12   | 13  | 14 | 15
0  | 0000 01 | 0000 01 | 0000 1 | 0000 | 0000 | 000 | 00 | 0
1  | 0001    | 0000 00 | 0000 0 | 0001 | 0001 | 001 | 01 | 1
2  | 0000 1  | 0001    | 001    | 001  | 01   | 1   | 1  | -
3  | 011     | 11      | 11     | 010  | 1    | 01  | -  | -
4  | 11      | 10      | 10     | 1    | 001  | -   | -  | -
5  | 10      | 001     | 01     | 011  | -    | -   | -  | -
6  | 010     | 01      | 0001   | -    | -    | -   | -  | -
7  | 001     | 0000 1  | -      | -    | -    | -   | -  | -
8  | 0000 00 | -       | -      | -    | -    | -   | -  | -
"""

# --------------------------------------------------------------------------- Table 9-9 (a)
# total_zeros of the 2x2 chroma DC block (4:2:0): one line per total_zeros, one column per
# tzVlcIndex (= TotalCoeff).
_TOTAL_ZEROS_DC_TEXT = """
tz | 1   | 2  | 3
0  | 1   | 1  | 1
1  | 01  | 01 | 0
2  | 001 | 00 | -
3  | 000 | -  | -
"""

# --------------------------------------------------------------------------- Table 9-10
# run_before: one line per run_before value, one column per zerosLeft (">6" for every
# zerosLeft above 6).
_RUN_BEFORE_TEXT = """
run | 1 | 2  | 3  | 4   | 5   | 6   | >6
0   | 1 | 1  | 11 | 11  | 11  | 11  | 111
1   | 0 | 01 | 10 | 10  | 10  | 000 | 110
2   | - | 00 | 01 | 01  | 011 | 001 | 101
3   | - | -  | 00 | 001 | 010 | 011 | 100
4   | - | -  | -  | 000 | 001 | 010 | 011
5   | - | -  | -  | -   | 000 | 101 | 010
6   | - | -  | -  | -   | -   | 100 | 001
7   | - | -  | -  | -   | -   | -   | 0001
8   | - | -  | -  | -   | -   | -   | 0000 1
9   | - | -  | -  | -   | -   | -   | 0000 01
10  | - | -  | -  | -   | -   | -   | 0000 001
11  | - | -  | -  | -   | -   | -   | 0000 0001
12  | - | -  | -  | -   | -   | -   | 0000 0000 1
13  | - | -  | -  | -   | -   | -   | 0000 0000 01
14  | - | -  | -  | -   | -   | -   | 0000 0000 001
"""

# --------------------------------------------------------------------------- Table 9-4
# coded_block_pattern of each codeNum 0..47 of me(v), chroma_format_idc 1 or 2, in the
# standard's direction (codeNum -> coded_block_pattern): Intra_4x4 / Intra_8x8 column, then
# Inter column.
_CBP_OF_CODE_NUM_INTRA = (
    47, 31, 15, 0, 23, 27, 29, 30, 7, 11, 13, 14, 39, 43, 45, 46,
    16, 3, 5, 10, 12, 19, 21, 26, 28, 35, 37, 42, 44, 1, 2, 4,
    8, 17, 18, 20, 24, 6, 9, 22, 25, 32, 33, 34, 36, 40, 38, 41,
)
_CBP_OF_CODE_NUM_INTER = (
    0, 16, 1, 2, 4, 8, 32, 3, 5, 10, 12, 15, 47, 7, 11, 13,
    14, 6, 9, 31, 35, 37, 42, 44, 33, 34, 36, 40, 39, 43, 45, 46,
    17, 18, 20, 24, 19, 21, 26, 28, 23, 27, 29, 30, 22, 25, 38, 41,
)


def _bits(text: str) -> tuple[int, int]:
    """(value, length) of one codeword written as bits, spaces ignored; (0, 0) for "-"."""
    digits = text.replace(" ", "")
    if digits == "-":
        return 0, 0
    if not digits or set(digits) - {"0", "1"}:
        raise ValueError(f"not a codeword: {text!r}")
    return int(digits, 2), len(digits)


def _rows(text: str) -> list[list[str]]:
    """The non-empty lines of a table text, split into stripped fields at '|'."""
    return [[field.strip() for field in line.split("|")] for line in text.strip().splitlines()]


def _parse_coeff_token() -> tuple[np.ndarray, np.ndarray]:
    code = np.zeros((5, 4, 17), np.int32)
    length = np.zeros((5, 4, 17), np.int32)
    for head, *words in _rows(_COEFF_TOKEN_TEXT):
        ones, total = (int(n) for n in head.split())
        for table, word in enumerate(words):
            code[table, ones, total], length[table, ones, total] = _bits(word)
    return code, length


def _parse_grid(text: str, code: np.ndarray, length: np.ndarray) -> None:
    """Fill ``code[column, row]`` and ``length[column, row]`` from a table printed as a header
    line of column indices (">6" standing for 7) and lines 'row | word | word | ...'."""
    header, *lines = _rows(text)
    columns = [7 if field == ">6" else int(field) for field in header[1:]]
    for row, *words in lines:
        for column, word in zip(columns, words, strict=True):
            code[column, int(row)], length[column, int(row)] = _bits(word)


def _parse_grids(shape: tuple[int, int], *texts: str) -> tuple[np.ndarray, np.ndarray]:
    code = np.zeros(shape, np.int32)
    length = np.zeros(shape, np.int32)
    for text in texts:
        _parse_grid(text, code, length)
    return code, length


def _inverse_permutation(values: tuple[int, ...]) -> np.ndarray:
    inverse = np.full(len(values), -1, np.int32)
    inverse[np.asarray(values)] = np.arange(len(values), dtype=np.int32)
    return inverse


COEFF_TOKEN_CODE, COEFF_TOKEN_LEN = _parse_coeff_token()
"""coeff_token (Table 9-5), ``[table, TrailingOnes, TotalCoeff]``; table 0: 0 <= nC < 2,
1: 2 <= nC < 4, 2: 4 <= nC < 8, 3: 8 <= nC (a 6-bit fixed-length code), 4: nC == -1 (chroma DC
of 4:2:0). LEN is 0 where the pair cannot occur (TrailingOnes > min(TotalCoeff, 3), or
TotalCoeff > 4 in table 4). :func:`coeff_token_table` maps nC to the table."""

TOTAL_ZEROS_CODE, TOTAL_ZEROS_LEN = _parse_grids((16, 16), _TOTAL_ZEROS_TEXT_9_7,
                                                 _TOTAL_ZEROS_TEXT_9_8)
"""total_zeros of 4x4 blocks (Tables 9-7 and 9-8), ``[TotalCoeff, total_zeros]``; TotalCoeff
1..15 (row 0 unused: a block without coefficients codes no total_zeros), LEN 0 where
total_zeros > 16 - TotalCoeff."""

TOTAL_ZEROS_DC_CODE, TOTAL_ZEROS_DC_LEN = _parse_grids((4, 4), _TOTAL_ZEROS_DC_TEXT)
"""total_zeros of the 2x2 chroma DC block of 4:2:0 (Table 9-9 (a)), ``[TotalCoeff,
total_zeros]``; TotalCoeff 1..3, LEN 0 where total_zeros > 4 - TotalCoeff."""

RUN_BEFORE_CODE, RUN_BEFORE_LEN = _parse_grids((8, 15), _RUN_BEFORE_TEXT)
"""run_before (Table 9-10), ``[min(zerosLeft, 7), run_before]``; zerosLeft 1..6 as such and
row 7 for every zerosLeft > 6; LEN 0 where run_before > zerosLeft (row 0 unused)."""

CBP_INTRA_CODE_NUM = _inverse_permutation(_CBP_OF_CODE_NUM_INTRA)
"""codeNum of me(v) for each coded_block_pattern 0..47 (= luma bits + 16 * chroma) of an
Intra_4x4 / Intra_8x8 macroblock, chroma_format_idc 1 or 2: Table 9-4 read backwards."""

CBP_INTER_CODE_NUM = _inverse_permutation(_CBP_OF_CODE_NUM_INTER)
"""codeNum of me(v) for each coded_block_pattern 0..47 of an Inter macroblock (Table 9-4
read backwards)."""

ZIGZAG_4X4 = np.array([0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15], np.int32)
"""Frame zig-zag scan of a 4x4 block (Table 8-13, Figure 8-8): the raster index
``row * 4 + col`` of the coefficient at each scan position 0..15."""

# The three classes of a 4x4 position: 0 when row and column are both even, 1 when both are
# odd, 2 otherwise. normAdjust4x4 (clause 8.5.9) and the forward multipliers depend on the
# position only through its class.
_POSITION_CLASS = np.array([[(r % 2) * (c % 2) if r % 2 == c % 2 else 2 for c in range(4)]
                            for r in range(4)]).reshape(16)

_V_BY_CLASS = np.array([[10, 16, 13], [11, 18, 14], [13, 20, 16],
                        [14, 23, 18], [16, 25, 20], [18, 29, 23]], np.int32)
_MF_BY_CLASS = np.array([[13107, 5243, 8066], [11916, 4660, 7490], [10082, 4194, 6554],
                         [9362, 3647, 5825], [8192, 3355, 5243], [7282, 2893, 4559]], np.int32)

DEQUANT_V = _V_BY_CLASS[:, _POSITION_CLASS]
"""LevelScale4x4 with flat scaling lists, i.e. normAdjust4x4(m, i, j) of clause 8.5.9 (the
factor 16 of the flat weight left out), ``[qP % 6, raster position]``. The decoder's
coefficient is ``level * DEQUANT_V[qP % 6, pos] << (qP // 6)`` before the inverse transform,
whose final ``(x + 32) >> 6`` ends the reconstruction."""

QUANT_MF = _MF_BY_CLASS[:, _POSITION_CLASS]
"""Forward quantisation multipliers of the common integer encoder formulation (not part of
the standard), ``[qP % 6, raster position]``: ``level = (|W| * QUANT_MF + f) >> (15 + qP // 6)``
for a forward core-transform coefficient W. They are the inverse of :data:`DEQUANT_V` through
the transform pair: ``DEQUANT_V * QUANT_MF * TRANSFORM_GAIN`` is 2**21 to within 0.02 %;
each multiplier is ``round(2**21 / (DEQUANT_V * TRANSFORM_GAIN))``."""

TRANSFORM_GAIN = np.array([16, 25, 20], np.int32)[_POSITION_CLASS]
"""Per raster position, the gain of the forward core transform followed by the inverse one
(without quantisation): the product of the row and the column gains, 4 for an even and 5 for
an odd frequency (the dot product of a row of the forward matrix with the same row of the
inverse matrix). It ties :data:`QUANT_MF` to :data:`DEQUANT_V`: 2**15 (forward shift) *
2**6 (inverse transform shift) = 2**21 = V * MF * gain, approximately."""

CHROMA_QP = np.array(list(range(30)) + [29, 30, 31, 32, 32, 33, 34, 34, 35, 35, 36, 36, 37, 37,
                                        37, 38, 38, 38, 39, 39, 39, 39], np.int32)
"""QPc as a function of qPI = Clip3(-QpBdOffsetC, 51, QPY + chroma_qp_index_offset), for
qPI 0..51 (Table 8-15; QPc = qPI below 30)."""

for _array in (COEFF_TOKEN_CODE, COEFF_TOKEN_LEN, TOTAL_ZEROS_CODE, TOTAL_ZEROS_LEN,
               TOTAL_ZEROS_DC_CODE, TOTAL_ZEROS_DC_LEN, RUN_BEFORE_CODE, RUN_BEFORE_LEN,
               CBP_INTRA_CODE_NUM, CBP_INTER_CODE_NUM, ZIGZAG_4X4, QUANT_MF, DEQUANT_V,
               TRANSFORM_GAIN, CHROMA_QP):
    _array.flags.writeable = False


def coeff_token_table(n_c: int) -> int:
    """Index of the coeff_token table (first axis of :data:`COEFF_TOKEN_CODE`) for an nC.

    Parameters
    ----------
    n_c : int
        nC of clause 9.2.1: -1 for the chroma DC block of 4:2:0, otherwise 0..16.

    Returns
    -------
    int
        0 for 0 <= nC < 2, 1 for 2 <= nC < 4, 2 for 4 <= nC < 8, 3 for 8 <= nC, 4 for -1.

    Examples
    --------
    >>> [coeff_token_table(n) for n in (0, 1, 2, 3, 4, 7, 8, 16, -1)]
    [0, 0, 1, 1, 2, 2, 3, 3, 4]
    """
    if n_c == -1:
        return 4
    if not 0 <= n_c <= 16:
        raise ValueError(f"n_c must be -1 or in 0..16, got {n_c}")
    return 0 if n_c < 2 else 1 if n_c < 4 else 2 if n_c < 8 else 3


def codeword(code: np.ndarray, length: np.ndarray, *index: int) -> str:
    """One codeword of a table as a string of bits (for tests, docs and debugging).

    Parameters
    ----------
    code, length : numpy.ndarray
        A ``*_CODE`` array and its ``*_LEN`` array.
    *index : int
        The entry, e.g. ``table, trailing_ones, total_coeff`` for coeff_token.

    Returns
    -------
    str
        The bits, first bit first; ``""`` where the table has no codeword.

    Examples
    --------
    >>> codeword(COEFF_TOKEN_CODE, COEFF_TOKEN_LEN, 4, 0, 0)
    '01'
    >>> codeword(RUN_BEFORE_CODE, RUN_BEFORE_LEN, 7, 14)
    '00000000001'
    """
    n = int(length[index])
    return f"{int(code[index]):0{n}b}" if n else ""
