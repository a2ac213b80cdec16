/*
 * printf_fmt.h — device printf formatting: turns the (format string, argument buffer) pair that a
 * kernel hands to `vprintf` into the text CUDA prints.
 *
 * Owned here: src/exec/printf_fmt.h, src/exec/printf_fmt.c.
 *
 * How CUDA does it (and so we do): nvcc lowers printf(fmt, ...) to `vprintf(fmt, argbuf)` where
 * argbuf is a local buffer holding each argument after C's default promotions, at an offset
 * aligned to its own size: char/short/int/unsigned → 4 bytes; long, long long, size_t and every
 * pointer (%s, %p) → 8 bytes aligned to 8; float → double, 8 bytes aligned to 8. A printf with no
 * arguments passes a null argbuf. The host then formats conversion by conversion with the C
 * library's printf (glibc on Linux), so each conversion here is formatted by the host snprintf
 * on the extracted value and the output matches glibc byte for byte.
 *
 * Behaviour, checked against CUDA 13 on an H200 (device printf vs this formatter):
 *  - Conversions d i u x X o c s f F e E g G a A p %, flags - + space # 0, width and precision as
 *    digits or '*' (an int argument each; a negative '*' width means '-' and its magnitude, a
 *    negative '*' precision means none), length modifiers hh h l ll z j t q L.
 *    h/hh read a 4-byte int and print it narrowed; l ll z j t q read 8 bytes; L on a float
 *    conversion is ignored (device long double is double) and on an integer one means ll.
 *  - %s with a NULL pointer prints glibc's "(null)" (or nothing when the precision is below 6);
 *    other pointers are read through the read_str callback, at most `precision` bytes when one is
 *    given. A pointer the callback cannot read prints WV_PRINTF_BAD_STR and sets
 *    WV_PRINTF_ST_BAD_STRING; nothing ever dereferences device addresses directly.
 *  - %lc/%ls print as %c/%s (no wide characters on the device side).
 *  - %n consumes its pointer argument and writes nothing (and prints nothing): the format string
 *    comes from device memory and must never be able to write host memory.
 *  - A malformed or unknown conversion ("%y", "%1$d", a '%' at the end, "%5" cut off) is copied
 *    to the output literally and consumes no argument (what CUDA prints too).
 *  - A null argbuf (printf with only a format string): "%%" prints '%', every other conversion
 *    is printed as written ("100%% done" → "100% done", "%5%" stays "%5%": both seen on the
 *    H200). A conversion that needs an argument (e.g. "%d") makes the device fault on real
 *    hardware; here it is printed as written and WV_PRINTF_ST_ARGS_SHORT is set so the
 *    caller can raise the fault.
 *  - Reading beyond args_len yields zero bytes and sets WV_PRINTF_ST_ARGS_SHORT.
 *  - Widths and precisions above WV_PRINTF_MAX_FIELD are clamped (WV_PRINTF_ST_CLAMPED): a device
 *    format like "%999999999d" must not make the host allocate gigabytes.
 * Known CUDA 13 deviations we do not copy (CUDA prints garbage or misaligned values there):
 * '.*' precision, hh with unsigned conversions, and some z/j/t/L combinations.
 */
#ifndef WV_EXEC_PRINTF_FMT_H
#define WV_EXEC_PRINTF_FMT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads a NUL-terminated string at device address `addr` into buf: at most cap-1 bytes, always
 * NUL-terminated. Returns the number of bytes stored (stopping early at the string's NUL), or a
 * negative value if the address is not readable. A string longer than cap-1 is simply cut: the
 * formatter asks for exactly as much as it can print.
 */
typedef int (*wv_printf_read_str_fn)(void *user, uint64_t addr, char *buf, size_t cap);

/* Status bits (ORed into *status). */
enum {
  WV_PRINTF_ST_ARGS_SHORT = 1u << 0,  /* a conversion read beyond args_len (read as zeros) */
  WV_PRINTF_ST_BAD_STRING = 1u << 1,  /* a %s pointer could not be read */
  WV_PRINTF_ST_BAD_FORMAT = 1u << 2,  /* malformed/unknown conversion printed literally */
  WV_PRINTF_ST_TRUNCATED = 1u << 3,   /* output did not fit in outcap */
  WV_PRINTF_ST_CLAMPED = 1u << 4,     /* a width/precision was clamped to WV_PRINTF_MAX_FIELD */
  WV_PRINTF_ST_IGNORED_N = 1u << 5,   /* a %n was skipped */
  WV_PRINTF_ST_NOMEM = 1u << 6,       /* host allocation failed; output is incomplete */
};

#define WV_PRINTF_MAX_FIELD 65536      /* largest width/precision honoured */
#define WV_PRINTF_MAX_STR (1u << 20)   /* longest %s read from device memory */
#define WV_PRINTF_BAD_STR "(bad address)"

/*
 * Formats into out[0..outcap) like snprintf: returns the length of the complete output (which
 * may exceed outcap-1; the text may contain NUL bytes from %c of 0), writes min(len, outcap-1)
 * bytes and a terminating NUL when outcap > 0. `fmt` is fmt_len bytes (formatting stops at a NUL
 * before that). `args` may be NULL (see above). read_str may be NULL (every non-null %s pointer
 * is then "bad"). status may be NULL. Thread-safe; no global state.
 */
size_t wv_printf_format(const char *fmt, size_t fmt_len, const uint8_t *args, size_t args_len,
                        wv_printf_read_str_fn read_str, void *user, char *out, size_t outcap,
                        unsigned *status);

/* Same, into a malloc'd NUL-terminated buffer (caller frees); *len gets the length. Returns NULL
 * only when out of memory. */
char *wv_printf_format_alloc(const char *fmt, size_t fmt_len, const uint8_t *args,
                             size_t args_len, wv_printf_read_str_fn read_str, void *user,
                             size_t *len, unsigned *status);

#ifdef __cplusplus
}
#endif

#endif
