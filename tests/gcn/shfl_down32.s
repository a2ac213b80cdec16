; shfl_down32.s — the same shfl.down by 1 on an RDNA wave32 (gfx1100 spelling): one v_mbcnt_lo gives the
; lane id, lane masks are 32-bit (vcc_lo), and the permute lane is address bits [6:2].
; RUN: --wave 32
v_mbcnt_lo_u32_b32 v6, -1, 0
v_lshlrev_b32 v7, 2, v6
v_add_nc_u32 v8, v6, v6
v_add_nc_u32 v8, 100, v8
ds_bpermute_b32 v9, v7, v8 offset:4
v_add_nc_u32 v10, 1, v6
v_cmp_gt_u32 vcc_lo, 32, v10
s_waitcnt lgkmcnt(0)
v_cndmask_b32 v11, v8, v9, vcc_lo
; EXPECT: v6: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
; EXPECT: v7: 0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112 116 120 124
; EXPECT: v8: 100 102 104 106 108 110 112 114 116 118 120 122 124 126 128 130 132 134 136 138 140 142 144 146 148 150 152 154 156 158 160 162
; EXPECT: v9: 102 104 106 108 110 112 114 116 118 120 122 124 126 128 130 132 134 136 138 140 142 144 146 148 150 152 154 156 158 160 162 100
; EXPECT: v10: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
; EXPECT: v11: 102 104 106 108 110 112 114 116 118 120 122 124 126 128 130 132 134 136 138 140 142 144 146 148 150 152 154 156 158 160 162 162
; EXPECT: vcc: 0x7fffffff
