/*
 * symtab.h — a pointer-keyed hash map with scoped shadowing, for the decoder's names. Keys are
 * interned strings (the parser interns every name, so equal names are equal pointers).
 */
#ifndef WV_SYMTAB_H
#define WV_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct wv_symtab {
  const void **keys;
  int64_t *vals;
  size_t cap, n;
  struct { const void *key; int64_t old; int had; } *undo;
  size_t nundo, capundo;
  size_t *marks;
  size_t nmarks, capmarks;
} wv_symtab;

void wv_symtab_init(wv_symtab *t);
void wv_symtab_fini(wv_symtab *t);
/* Returns 1 and *val if key is bound. */
int wv_symtab_get(const wv_symtab *t, const void *key, int64_t *val);
/* Bind key (shadowing any outer binding until the current scope closes). -1 on OOM. */
int wv_symtab_put(wv_symtab *t, const void *key, int64_t val);
int wv_symtab_open(wv_symtab *t);
void wv_symtab_close(wv_symtab *t);

#endif
