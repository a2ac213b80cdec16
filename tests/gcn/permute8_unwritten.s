; permute8_unwritten.s — every lane pushes to index 0 (addresses 0..3 all select lane 0, and 256 wraps:
; only bits [4:2] count on the 8-lane toy wave, [7:2] on wave64). Lane 7, the highest, wins index 0;
; indices 1..7 are never written and read 0 ("uninitialised entries read 0").
; RUN: --wave 8 --set v1=0,1,2,3,256,0x20,0xffffffe0,0x1000 --set v2=10,20,30,40,50,60,70,80
ds_permute_b32 v3, v1, v2
; EXPECT: v3: 80 0 0 0 0 0 0 0
