; rotate8.s — the offset immediate is added to the address before the lane bits are taken, so one address
; register (lane id * 4) rotates by any amount: offset:4 pulls from lane i+1, offset:28 (= -4 mod 32 bytes)
; from lane i-1, offset:32 is a full turn. v0 is the lane id.
; RUN: --wave 8 --set v3=10,20,30,40,50,60,70,80
v_lshlrev_b32 v1, 2, v0             // byte address of the own lane
ds_bpermute_b32 v4, v1, v3 offset:4
ds_bpermute_b32 v5, v1, v3 offset:28
ds_bpermute_b32 v6, v1, v3 offset:0x20
ds_permute_b32 v7, v1, v3 offset:4  // forward: push to lane i+1, i.e. lane i receives from lane i-1
s_waitcnt lgkmcnt(0)
; EXPECT: v1: 0 4 8 12 16 20 24 28
; EXPECT: v4: 20 30 40 50 60 70 80 10
; EXPECT: v5: 80 10 20 30 40 50 60 70
; EXPECT: v6: 10 20 30 40 50 60 70 80
; EXPECT: v7: 80 10 20 30 40 50 60 70
