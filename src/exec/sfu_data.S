/* sfu_data.S — data/sfu/sm90.sfu (the SFU tables recorded on the GPU) built into warpvm as
 * wv_sfu_blob .. wv_sfu_blob_end, read by sfu.c. WV_SFU_FILE is the file's path (CMakeLists.txt). */
        .section .rodata
        .balign 16
        .globl wv_sfu_blob
        .type wv_sfu_blob, @object
wv_sfu_blob:
        .incbin WV_SFU_FILE
        .globl wv_sfu_blob_end
wv_sfu_blob_end:
        .section .note.GNU-stack,"",@progbits
