/*
** $Id: lmem.c,v 1.70.1.1 2007/12/27 13:02:25 roberto Exp $
** Interface to Memory Manager
** See Copyright Notice in lua.h
*/


#include <stddef.h>

#define lmem_c
#define LUA_CORE

#include "lua.h"

#include "ldebug.h"
#include "ldo.h"
#include "lmem.h"
#include "lobject.h"
#include "lstate.h"



/*
** About the realloc function:
** void * frealloc (void *ud, void *ptr, size_t osize, size_t nsize);
** (`osize' is the old size, `nsize' is the new size)
**
** Lua ensures that (ptr == NULL) iff (osize == 0).
**
** * frealloc(ud, NULL, 0, x) creates a new block of size `x'
**
** * frealloc(ud, p, x, 0) frees the block `p'
** (in this specific case, frealloc must return NULL).
** particularly, frealloc(ud, NULL, 0, 0) does nothing
** (which is equivalent to free(NULL) in ANSI C)
**
** frealloc returns NULL if it cannot create or reallocate the area
** (any reallocation to an equal or smaller size cannot fail!)
*/



#define MINSIZEARRAY	4


void *luaM_growaux_ (lua_State *L, void *block, int *size, size_t size_elems,
                     int limit, const char *errormsg) {
  void *newblock;
  int newsize;
  if (*size >= limit/2) {  /* cannot double it? */
    if (*size >= limit)  /* cannot grow even a little? */
      luaG_runerror(L, errormsg);
    newsize = limit;  /* still have at least one free place */
  }
  else {
    newsize = (*size)*2;
    if (newsize < MINSIZEARRAY)
      newsize = MINSIZEARRAY;  /* minimum size */
  }
  newblock = luaM_reallocv(L, block, *size, newsize, size_elems);
  *size = newsize;  /* update only when everything else is OK */
  return newblock;
}


void *luaM_toobig (lua_State *L) {
  luaG_runerror(L, "memory allocation error: block too big");
  return NULL;  /* to avoid warnings */
}



/*
** generic allocation routine.
*/
/*
** karmada-interpreter: a per-state cache of small blocks. A script run
** allocates and frees many small objects (tables, their node and order
** vectors, strings, closures); the system allocator's cost for each, and
** the consolidation of its free lists that a larger request triggers, were
** a large part of a run. Blocks of up to LUAI_SMALLMAX bytes are taken
** from the allocator rounded up to their size class, and a freed one is
** kept on its class's list (up to LUAI_SMALLCAP bytes in all) for the next
** request of that class. `totalbytes' (the collector's accounting) counts
** what Lua uses, as before; the allocator sees the cached blocks as in use.
*/
#define smallsize(n)	(((n) + (LUAI_SMALLSTEP - 1)) & ~(size_t)(LUAI_SMALLSTEP - 1))
#define issmall(n)	((n) > 0 && (n) <= LUAI_SMALLMAX)
#define smallclass(n)	((n) / LUAI_SMALLSTEP - 1)

void *luaM_realloc_ (lua_State *L, void *block, size_t osize, size_t nsize) {
  global_State *g = G(L);
  size_t ro = issmall(osize) ? smallsize(osize) : osize;
  size_t rn = issmall(nsize) ? smallsize(nsize) : nsize;
  lua_assert((osize == 0) == (block == NULL));
  if (block != NULL && ro == rn) {
    /* same class (or same size): the block serves as it is */
  }
  else if (block != NULL && nsize == 0 && issmall(osize)
           && g->smallcached + ro <= LUAI_SMALLCAP) {
    void **head = &g->smallfree[smallclass(ro)];
    *(void **)block = *head;
    *head = block;
    g->smallcached += ro;
    block = NULL;
  }
  else if (block == NULL && issmall(nsize)
           && g->smallfree[smallclass(rn)] != NULL) {
    void **head = &g->smallfree[smallclass(rn)];
    block = *head;
    *head = *(void **)block;
    g->smallcached -= rn;
  }
  else {
    block = (*g->frealloc)(g->ud, block, ro, rn);
    if (block == NULL && nsize > 0)
      luaD_throw(L, LUA_ERRMEM);
  }
  lua_assert((nsize == 0) == (block == NULL));
  g->totalbytes = (g->totalbytes - osize) + nsize;
  return block;
}


/* karmada-interpreter: hands every cached small block back (lua_close) */
void luaM_freesmall (global_State *g) {
  int c;
  for (c = 0; c < LUAI_NSMALL; c++) {
    void *b = g->smallfree[c];
    while (b != NULL) {
      void *next = *(void **)b;
      (*g->frealloc)(g->ud, b, (size_t)(c + 1) * LUAI_SMALLSTEP, 0);
      b = next;
    }
    g->smallfree[c] = NULL;
  }
  g->smallcached = 0;
}

