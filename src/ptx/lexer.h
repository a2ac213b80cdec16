/*
 * lexer.h — the PTX tokenizer: turns raw bytes (not NUL-terminated, any content) into tokens
 * with 1-based line:col positions, skipping whitespace, // and block comments and `@@DWARF`
 * lines. Owns the token kinds and the lexer state; the parser (parser.c) is its only user.
 *
 * Token shapes:
 *   IDENT     foo, $L__BB0_2, _, sm_90a, shared::cta (letters, digits, _ $, joined by ::)
 *   REG       %r1, %SP, %tid.x (a '%'-name, with a single .x/.y/.z/.w suffix joined)
 *   DIRECTIVE .version, .b32, .global, .2d, .shared::cta (text includes the leading '.')
 *   INT       42, 0x2A, 052, 0b101, 42U (value in `ival`; a '-' is a separate PUNCT)
 *   F32       0f3F800000 (bits in `ival`)
 *   F64       0d3FF0000000000000 or a decimal float such as 1.5, 2e10 (bits in `ival`)
 *   STRING    "text" (`p`/`len` cover the text between the quotes, escapes left as written)
 *   PUNCT     one of ; , : { } [ ] ( ) < > + - ! @ | = (the character in `punct`)
 *   END       end of input
 */
#ifndef WV_PTX_LEXER_H
#define WV_PTX_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/ast.h"

#define PTX_MAX_STRING 4096 /* longest string literal, in bytes */

typedef enum ptx_tok_kind {
  PTX_TOK_END = 0,
  PTX_TOK_IDENT,
  PTX_TOK_REG,
  PTX_TOK_DIRECTIVE,
  PTX_TOK_INT,
  PTX_TOK_F32,
  PTX_TOK_F64,
  PTX_TOK_STRING,
  PTX_TOK_PUNCT,
} ptx_tok_kind;

typedef struct ptx_token {
  ptx_tok_kind kind;
  ptx_loc loc;
  const char *p;   /* token text in the source (for STRING: inside the quotes) */
  size_t len;
  size_t end;      /* offset just past the token in the source */
  uint64_t ival;   /* INT value / F32, F64 bits */
  char punct;      /* PUNCT character */
  uint8_t spaced;  /* whitespace or a comment came between the previous token and this one */
  uint8_t is_decimal_float; /* F64 written as a decimal (1.5) rather than 0d... */
} ptx_token;

typedef struct ptx_lexer {
  const char *text;
  size_t len, pos;
  uint32_t line;         /* current line (1-based) */
  size_t line_start;     /* offset of the current line's first byte */
  const char *filename;  /* for messages */
  char *err;             /* message buffer (may be NULL) */
  size_t errlen;
} ptx_lexer;

/* Set up `lx` to read text[0..len). `err`/`errlen` receive the message of a failing call. */
void ptx_lexer_init(ptx_lexer *lx, const char *text, size_t len, const char *filename, char *err,
                    size_t errlen);

/* Reads the next token into *t. Returns 0, or -1 after writing "FILE:LINE:COL: error: ..." into
 * the error buffer (invalid character, unterminated comment or string, bad number). Names may be of
 * any length.
 * After END it keeps returning END. */
int ptx_lex_next(ptx_lexer *lx, ptx_token *t);

/* Writes "FILE:LINE:COL: error: MESSAGE" into buf (printf-style message); used by the parser too. */
void ptx_format_error(char *buf, size_t buflen, const char *filename, ptx_loc loc, const char *fmt,
                      ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Describes a token for messages: 'text' in quotes (truncated, control bytes as \xNN), or
 * "end of file" / "string". Writes into buf (NUL-terminated) and returns buf. */
const char *ptx_token_describe(const ptx_token *t, char *buf, size_t buflen);

#endif
