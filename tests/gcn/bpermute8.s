; bpermute8.s — the 8-lane ds_bpermute_b32 example of shared/reference/shfl-lowering-to-ds-permute.zh.md §3:
; lanes 0 and 1 hold byte addresses 8 (0b00001000) and 9 (0b00001001); bits [1:0] are ignored, so both
; pull lane 2 (value 33); lane 2 holds address 0 and pulls lane 0 (value 11). Backward permute = gather.
; RUN: --wave 8 --set v1=8,9,0,12,28,20,16,4 --set v2=11,22,33,44,55,66,77,88
ds_bpermute_b32 v3, v1, v2          // v3[i] = v2[v1[i] / 4]
s_waitcnt lgkmcnt(0)
; EXPECT: v3: 33 33 11 44 88 66 55 22
