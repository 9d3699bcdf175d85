"""Parameter sets and slice headers (7.3.2.1, 7.3.2.2, 7.3.3) for the encoder's one layout:
progressive frames, 4:2:0 8-bit, CAVLC, POC type 2 (output order = decoding order), one
reference frame, one slice per picture, deblocking off.

Examples
--------
>>> sps = sps_rbsp(64, 48, Layout.of(64, 48, fps=16).level_idc)
>>> sps[:3].hex()   # profile 66, constraint_set0+1 (Constrained Baseline), level 1.0
'42c00a'
>>> Layout.of(256, 256, fps=16).level_idc, Layout.of(1024, 1024, fps=16).level_idc
(12, 32)
>>> Layout.of(4096, 4096, fps=16).level_idc, Layout.of(1024, 1024, fps=60).level_idc
(60, 40)
"""
from __future__ import annotations

from dataclasses import dataclass

from ...runtime._numba import noalloc_kernel
from ...runtime.errors import ParameterError
from .bitstream import new_writer, put_bits, put_se, put_ue, trailing_bits, written

#: Table A-1's limits that decide the level of this encoder's streams, lowest level first:
#: (level_idc, MaxMBPS macroblocks per second, MaxFS macroblocks per frame, MaxDpbMbs
#: macroblocks of decoded picture buffer). Level 1b (Baseline: level_idc 11 with
#: constraint_set3_flag) has level 1.0's limits and is never chosen; levels 2 and 4.1 have
#: those of 1.3 and 4, so the lower one is.
LEVELS = ((10, 1485, 99, 396), (11, 3000, 396, 900), (12, 6000, 396, 2376),
          (13, 11880, 396, 2376), (20, 11880, 396, 2376), (21, 19800, 792, 4752),
          (22, 20250, 1620, 8100), (30, 40500, 1620, 8100), (31, 108000, 3600, 18000),
          (32, 216000, 5120, 20480), (40, 245760, 8192, 32768), (41, 245760, 8192, 32768),
          (42, 522240, 8704, 34816), (50, 589824, 22080, 110400),
          (51, 983040, 36864, 184320), (52, 2073600, 36864, 184320),
          (60, 4177920, 139264, 696320), (61, 8355840, 139264, 696320),
          (62, 16711680, 139264, 696320))
#: Decoded pictures the SPS asks a decoder to hold (max_num_ref_frames and
#: max_dec_frame_buffering): one reference picture.
DPB_FRAMES = 1
LOG2_MAX_FRAME_NUM = 4
#: BT.601 (SMPTE 170M) colour primaries, transfer and matrix codes (Table E-3..E-5).
SMPTE170M = 6
PROFILE_BASELINE, PROFILE_MAIN = 66, 77
#: constraint_set0_flag and constraint_set1_flag: Constrained Baseline (A.2.1.1).
CONSTRAINED_BASELINE_FLAGS = 0xC0
#: constraint_set1_flag alone: a Main profile stream (A.2.2) that is not Baseline (it uses
#: weighted prediction).
MAIN_FLAGS = 0x40
#: ``weights[0]`` of :func:`slice_header`: no pred_weight_table (a PPS without weighted
#: prediction); a table of one reference index at the default weights; two reference indices.
WEIGHTS_NONE, WEIGHTS_IDENTITY, WEIGHTS_SECOND_REF = 0, 1, 2


@dataclass(frozen=True)
class Layout:
    """Macroblock grid, cropping and level of a width x height picture."""

    width: int
    height: int
    mb_width: int
    mb_height: int
    level_idc: int

    @classmethod
    def of(cls, width: int, height: int, fps: int = 30) -> "Layout":
        """The grid of a width x height picture and the lowest level (:func:`level_for`) that
        allows it at ``fps`` pictures per second."""
        mbw, mbh = -(-width // 16), -(-height // 16)
        return cls(width, height, mbw, mbh, level_for(width, height, fps))


def allows(limits, mb_width: int, mb_height: int, fps: int) -> bool:
    """Whether a level's ``limits`` (a row of :data:`LEVELS`) allow pictures of mb_width x
    mb_height macroblocks at ``fps`` pictures per second (A.3.1: frame size, each side at
    most sqrt(8 MaxFS), the macroblock rate, and the picture buffer for :data:`DPB_FRAMES`).

    Examples
    --------
    >>> allows(LEVELS[2], 16, 16, 16), allows(LEVELS[2], 16, 16, 30)
    (True, False)
    """
    _, max_mbps, max_fs, max_dpb_mbs = limits
    frame = mb_width * mb_height
    return (frame <= max_fs and max(mb_width, mb_height) ** 2 <= 8 * max_fs
            and frame * fps <= max_mbps and frame * DPB_FRAMES <= max_dpb_mbs)


def level_for(width: int, height: int, fps: int) -> int:
    """The level_idc of the lowest level of :data:`LEVELS` that allows width x height
    pictures at ``fps`` pictures per second (:func:`allows`); ParameterError naming the
    limits when none does.

    Examples
    --------
    >>> level_for(256, 256, 16), level_for(256, 256, 120), level_for(1024, 1024, 60)
    (12, 30, 40)
    """
    mb_width, mb_height = -(-width // 16), -(-height // 16)
    for limits in LEVELS:
        if allows(limits, mb_width, mb_height, fps):
            return limits[0]
    top, max_mbps, max_fs, _ = LEVELS[-1]
    frame = mb_width * mb_height
    raise ParameterError(
        f"no H.264 level allows {width}x{height} pictures at {fps} fps: level {top / 10:.1f}, "
        f"the highest, allows at most {max_fs:,} macroblocks per picture ({frame:,} here), "
        f"{int((8 * max_fs) ** 0.5)} per side ({max(mb_width, mb_height)} here) and "
        f"{max_mbps:,} per second ({frame * fps:,} here)")


def sps_rbsp(width: int, height: int, level_idc: int, profile_idc: int = PROFILE_BASELINE,
             constraint_flags: int = CONSTRAINED_BASELINE_FLAGS) -> bytes:
    """seq_parameter_set_rbsp() with VUI colour tags (BT.601, limited range) and cropping."""
    mb_width, mb_height = -(-width // 16), -(-height // 16)
    buf, st = new_writer(64)
    put_bits(buf, st, profile_idc, 8)
    put_bits(buf, st, constraint_flags, 8)
    put_bits(buf, st, level_idc, 8)
    put_ue(buf, st, 0)                            # seq_parameter_set_id
    put_ue(buf, st, LOG2_MAX_FRAME_NUM - 4)
    put_ue(buf, st, 2)                            # pic_order_cnt_type
    put_ue(buf, st, 1)                            # max_num_ref_frames
    put_bits(buf, st, 0, 1)                       # gaps_in_frame_num_value_allowed_flag
    put_ue(buf, st, mb_width - 1)
    put_ue(buf, st, mb_height - 1)
    put_bits(buf, st, 1, 1)                       # frame_mbs_only_flag
    put_bits(buf, st, 1, 1)                       # direct_8x8_inference_flag
    crop_right, crop_bottom = (16 * mb_width - width) // 2, \
        (16 * mb_height - height) // 2
    cropping = crop_right or crop_bottom
    put_bits(buf, st, 1 if cropping else 0, 1)    # frame_cropping_flag
    if cropping:
        for offset in (0, crop_right, 0, crop_bottom):   # left, right, top, bottom
            put_ue(buf, st, offset)
    put_bits(buf, st, 1, 1)                       # vui_parameters_present_flag
    put_bits(buf, st, 0, 1)                       # aspect_ratio_info_present_flag
    put_bits(buf, st, 0, 1)                       # overscan_info_present_flag
    put_bits(buf, st, 1, 1)                       # video_signal_type_present_flag
    put_bits(buf, st, 5, 3)                       # video_format: unspecified
    put_bits(buf, st, 0, 1)                       # video_full_range_flag: limited range
    put_bits(buf, st, 1, 1)                       # colour_description_present_flag
    for code in (SMPTE170M, SMPTE170M, SMPTE170M):  # primaries, transfer, matrix
        put_bits(buf, st, code, 8)
    put_bits(buf, st, 0, 1)                       # chroma_loc_info_present_flag
    put_bits(buf, st, 0, 1)                       # timing_info_present_flag
    put_bits(buf, st, 0, 1)                       # nal_hrd_parameters_present_flag
    put_bits(buf, st, 0, 1)                       # vcl_hrd_parameters_present_flag
    put_bits(buf, st, 0, 1)                       # pic_struct_present_flag
    put_bits(buf, st, 1, 1)                       # bitstream_restriction_flag
    put_bits(buf, st, 1, 1)                       # motion_vectors_over_pic_boundaries_flag
    put_ue(buf, st, 0)                            # max_bytes_per_pic_denom
    put_ue(buf, st, 0)                            # max_bits_per_mb_denom
    put_ue(buf, st, 16)                           # log2_max_mv_length_horizontal
    put_ue(buf, st, 16)                           # log2_max_mv_length_vertical
    put_ue(buf, st, 0)                            # max_num_reorder_frames
    put_ue(buf, st, 1)                            # max_dec_frame_buffering
    trailing_bits(buf, st)
    return written(buf, st)


def pps_rbsp(weighted_pred: bool = False) -> bytes:
    """pic_parameter_set_rbsp(): CAVLC, QP 26 base, deblocking control present."""
    buf, st = new_writer(16)
    put_ue(buf, st, 0)                            # pic_parameter_set_id
    put_ue(buf, st, 0)                            # seq_parameter_set_id
    put_bits(buf, st, 0, 1)                       # entropy_coding_mode_flag: CAVLC
    put_bits(buf, st, 0, 1)                       # bottom_field_pic_order_in_frame_present
    put_ue(buf, st, 0)                            # num_slice_groups_minus1
    put_ue(buf, st, 0)                            # num_ref_idx_l0_default_active_minus1
    put_ue(buf, st, 0)                            # num_ref_idx_l1_default_active_minus1
    put_bits(buf, st, 1 if weighted_pred else 0, 1)  # weighted_pred_flag
    put_bits(buf, st, 0, 2)                       # weighted_bipred_idc
    put_se(buf, st, 0)                            # pic_init_qp_minus26
    put_se(buf, st, 0)                            # pic_init_qs_minus26
    put_se(buf, st, 0)                            # chroma_qp_index_offset
    put_bits(buf, st, 1, 1)                       # deblocking_filter_control_present_flag
    put_bits(buf, st, 0, 1)                       # constrained_intra_pred_flag
    put_bits(buf, st, 0, 1)                       # redundant_pic_cnt_present_flag
    trailing_bits(buf, st)
    return written(buf, st)


@noalloc_kernel
def slice_header(buf, st, idr, frame_num, qp, idr_pic_id, weights):  # pragma: no cover
    """Write slice_header() of an I (IDR) or P slice covering the whole picture.

    ``weights``: int64 array (:data:`WEIGHTS_NONE`, :data:`WEIGHTS_IDENTITY` or
    :data:`WEIGHTS_SECOND_REF` in ``weights[0]``, then logWD and the luma, Cb and Cr weight
    and offset). With a PPS of ``weighted_pred_flag`` 0 it must be WEIGHTS_NONE. With a
    weighted PPS every P slice has a pred_weight_table: WEIGHTS_IDENTITY gives one reference
    index with the default weights; WEIGHTS_SECOND_REF gives two, both the previous picture
    (a reference list modification), index 1 with ``weights[2:8]`` at denominator
    ``2 ** weights[1]`` for luma and chroma alike.
    """
    put_ue(buf, st, 0)                            # first_mb_in_slice
    put_ue(buf, st, 7 if idr else 5)              # slice_type: I or P (all slices alike)
    put_ue(buf, st, 0)                            # pic_parameter_set_id
    put_bits(buf, st, frame_num, LOG2_MAX_FRAME_NUM)
    if idr:
        put_ue(buf, st, idr_pic_id)
    else:
        two_refs = weights[0] == WEIGHTS_SECOND_REF
        put_bits(buf, st, 1 if two_refs else 0, 1)   # num_ref_idx_active_override_flag
        if two_refs:
            put_ue(buf, st, 1)                    # num_ref_idx_l0_active_minus1
        put_bits(buf, st, 1 if two_refs else 0, 1)   # ref_pic_list_modification_flag_l0
        if two_refs:   # index 0 and 1 both = the previous picture (picNum CurrPicNum - 1)
            put_ue(buf, st, 0)
            put_ue(buf, st, 0)
            put_ue(buf, st, 0)
            put_ue(buf, st, (1 << LOG2_MAX_FRAME_NUM) - 1)  # minus MaxPicNum: same picture
            put_ue(buf, st, 3)
        if weights[0] != WEIGHTS_NONE:            # pred_weight_table()
            put_ue(buf, st, weights[1])           # luma_log2_weight_denom
            put_ue(buf, st, weights[1])           # chroma_log2_weight_denom
            put_bits(buf, st, 0, 1)               # ref 0: luma_weight_l0_flag
            put_bits(buf, st, 0, 1)               # ref 0: chroma_weight_l0_flag
            if two_refs:
                put_bits(buf, st, 1, 1)           # ref 1: luma_weight_l0_flag
                put_se(buf, st, weights[2])
                put_se(buf, st, weights[3])
                put_bits(buf, st, 1, 1)           # ref 1: chroma_weight_l0_flag
                for k in range(4, 8):             # Cb weight, offset, Cr weight, offset
                    put_se(buf, st, weights[k])
    if idr:
        put_bits(buf, st, 0, 1)                   # no_output_of_prior_pics_flag
        put_bits(buf, st, 0, 1)                   # long_term_reference_flag
    else:
        put_bits(buf, st, 0, 1)                   # adaptive_ref_pic_marking_mode_flag
    put_se(buf, st, qp - 26)                      # slice_qp_delta
    put_ue(buf, st, 1)                            # disable_deblocking_filter_idc
