"""residual_block_cavlc() (7.3.5.3.2, 9.2): one block of quantised levels, in scan order,
written as coeff_token, trailing-one signs, levels (prefix/suffix with the adaptive suffix
length and the escapes), total_zeros and run_before.

``stats`` (int64 array, :data:`STAT_NAMES`) counts what was used, so tests can check that
every table and escape is exercised.

Examples
--------
>>> import numpy as np
>>> from .bitstream import new_writer
>>> buf, st = new_writer(32); stats = np.zeros(len(STAT_NAMES), np.int64)
>>> levels = np.array([0, 3, -1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], np.int32)
>>> write_block(buf, st, levels, 16, 0, stats)   # total_coeff
3
>>> int(st[0] * 8 + st[2])   # token 7, signs 2, level 3, total_zeros 3, runs 2 + 1
18
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel
from .bitstream import put_bits
from .cavlc_tables import (COEFF_TOKEN_CODE, COEFF_TOKEN_LEN, RUN_BEFORE_CODE, RUN_BEFORE_LEN,
                           TOTAL_ZEROS_CODE, TOTAL_ZEROS_DC_CODE, TOTAL_ZEROS_DC_LEN,
                           TOTAL_ZEROS_LEN)

#: Names of the ``stats`` counters (the first five: coeff_token table by nC range).
STAT_NAMES = ("nc_0_1", "nc_2_3", "nc_4_7", "nc_8_up", "nc_chroma_dc", "level_prefix_14",
              "level_prefix_15", "mb_skip", "mb_p16x16", "mb_p16x16_zero_mv", "mb_i16x16",
              "i16_v", "i16_h", "i16_dc", "i16_plane", "chroma_dc", "chroma_h", "chroma_v",
              "chroma_plane", "mv_outside", "mv_odd_chroma", "mb_weighted", "mb_i4x4", "i4_v",
              "i4_h", "i4_dc", "i4_ddl", "i4_ddr", "i4_vr", "i4_hd", "i4_vl", "i4_hu")
STAT = {name: k for k, name in enumerate(STAT_NAMES)}
N_STATS = len(STAT_NAMES)
(_NC_0, _NC_2, _NC_4, _NC_8, _NC_DC, S_PREFIX_14, S_PREFIX_15, S_MB_SKIP, S_MB_P16X16,
 S_MB_P16X16_ZERO_MV, S_MB_I16X16, S_I16_V, _I16_H, _I16_DC, _I16_PLANE, S_CHROMA_DC, _C_H, _C_V,
 _C_PLANE, S_MV_OUTSIDE, S_MV_ODD_CHROMA, S_MB_WEIGHTED, S_MB_I4X4, S_I4_0) = range(N_STATS - 8)


@noalloc_kernel(inline="always")
def coeff_token_table(nc):  # pragma: no cover - compiled
    """Table of 9-5 for the context nC (-1: chroma DC)."""
    if nc < 0:
        return 4
    if nc < 2:
        return 0
    if nc < 4:
        return 1
    if nc < 8:
        return 2
    return 3


@noalloc_kernel
def _write_level(buf, st, level_code, suffix_length, stats):  # pragma: no cover - compiled
    """level_prefix and level_suffix of one levelCode (the inverse of 9.2.2.1)."""
    if suffix_length == 0 and level_code < 14:
        put_bits(buf, st, 1, level_code + 1)
    elif suffix_length == 0 and level_code < 30:
        put_bits(buf, st, 1, 15)                  # level_prefix 14: a 4-bit suffix
        put_bits(buf, st, level_code - 14, 4)
        stats[S_PREFIX_14] += 1
    elif suffix_length > 0 and level_code < (15 << suffix_length):
        put_bits(buf, st, 1, (level_code >> suffix_length) + 1)
        put_bits(buf, st, level_code, suffix_length)
    else:                                         # level_prefix 15: a 12-bit suffix
        escape = level_code - (15 << suffix_length) - (15 if suffix_length == 0 else 0)
        if escape >= 4096:
            raise ValueError("level too large for level_prefix 15 (use a higher QP)")
        put_bits(buf, st, 1, 16)
        put_bits(buf, st, escape, 12)
        stats[S_PREFIX_15] += 1


@noalloc_kernel
def write_block(buf, st, coeffs, max_num, nc, stats):  # pragma: no cover - compiled
    """Write residual_block_cavlc of ``coeffs[:max_num]`` (scan order) in context ``nc``;
    return TotalCoeff."""
    total = 0
    last = -1
    ones = 0
    counting_ones = True
    for k in range(max_num - 1, -1, -1):   # from the highest frequency down
        level = coeffs[k]
        if level != 0:
            if last < 0:
                last = k
            total += 1
            if counting_ones and ones < 3 and (level == 1 or level == -1):
                ones += 1
            else:
                counting_ones = False
    table = coeff_token_table(nc)
    put_bits(buf, st, COEFF_TOKEN_CODE[table, ones, total], COEFF_TOKEN_LEN[table, ones, total])
    stats[table] += 1
    if total == 0:
        return 0
    suffix_length = 1 if total > 10 and ones < 3 else 0
    i = 0
    for k in range(last, -1, -1):
        if coeffs[k] == 0:
            continue
        level = np.int64(coeffs[k])
        if i < ones:
            put_bits(buf, st, 1 if level < 0 else 0, 1)    # trailing one's sign
        else:
            level_code = 2 * level - 2 if level > 0 else -2 * level - 1
            if i == ones and ones < 3:
                level_code -= 2
            _write_level(buf, st, level_code, suffix_length, stats)
            if suffix_length == 0:
                suffix_length = 1
            if abs(level) > (3 << (suffix_length - 1)) and suffix_length < 6:
                suffix_length += 1
        i += 1
    zeros_left = 0
    if total < max_num:
        zeros_left = last + 1 - total
        if max_num == 4:
            put_bits(buf, st, TOTAL_ZEROS_DC_CODE[total, zeros_left],
                     TOTAL_ZEROS_DC_LEN[total, zeros_left])
        else:
            put_bits(buf, st, TOTAL_ZEROS_CODE[total, zeros_left],
                     TOTAL_ZEROS_LEN[total, zeros_left])
    previous = last
    i = 0
    for k in range(last - 1, -1, -1):   # run_before of each level but the last (lowest)
        if zeros_left <= 0 or i >= total - 1:
            break
        if coeffs[k] != 0:
            run = previous - k - 1
            row = zeros_left if zeros_left < 7 else 7
            put_bits(buf, st, RUN_BEFORE_CODE[row, run], RUN_BEFORE_LEN[row, run])
            zeros_left -= run
            previous = k
            i += 1
    return total
