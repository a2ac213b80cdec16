; permute8_conflict.s — the 8-lane forward ds_permute_b32 example of the reference text §3: lanes 0 and 1
; both push to index 2; as for two writes to one LDS address the higher lane wins, so tmp[2] = 10 (lane 1's
; value). Nobody pushes to index 4: that entry was never written and reads 0.
; RUN: --wave 8 --set v1=8,8,0,4,12,20,24,28 --set v2=5,10,15,20,25,30,35,40
ds_permute_b32 v3, v1, v2           // v3[v1[i] / 4] = v2[i], then each lane reads its entry
s_waitcnt lgkmcnt(0)
; EXPECT: v3: 15 20 10 25 0 30 35 40
