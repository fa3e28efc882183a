/*
** $Id: ltable.c,v 2.32.1.2 2007/12/28 15:32:23 roberto Exp $
** Lua tables (hash)
** See Copyright Notice in lua.h
*/


/*
** Implementation of tables (aka arrays, objects, or hash tables).
** Tables keep its elements in two parts: an array part and a hash part.
** Non-negative integer keys are all candidates to be kept in the array
** part. The actual size of the array is the largest `n' such that at
** least half the slots between 0 and n are in use.
** Hash uses a mix of chained scatter table with Brent's variation.
** A main invariant of these tables is that, if an element is not
** in its main position (i.e. the `original' position that its hash gives
** to it), then the colliding element is in its own main position.
** Hence even when the load factor reaches 100%, performance remains good.
*/

#include <math.h>
#include <string.h>

#define ltable_c
#define LUA_CORE

#include "lua.h"

#include "ldebug.h"
#include "ldo.h"
#include "lgc.h"
#include "lmem.h"
#include "lobject.h"
#include "lstate.h"
#include "ltable.h"


/*
** max size of array part is 2^MAXBITS
*/
#if LUAI_BITSINT > 26
#define MAXBITS		26
#else
#define MAXBITS		(LUAI_BITSINT-2)
#endif

#define MAXASIZE	(1 << MAXBITS)


/*
** karmada-interpreter: a node holding a key whose value was deleted; the
** key keeps its node (and so its insertion rank) through rehashes, as
** gopher-lua's key list keeps every key ever set
*/
#define keptkey(n) (!ttisnil(gkey(n)) && ttype(gkey(n)) != LUA_TDEADKEY)


#define hashpow2(t,n)      (gnode(t, lmod((n), sizenode(t))))
  
#define hashstr(t,str)  hashpow2(t, (str)->tsv.hash)
#define hashboolean(t,p)        hashpow2(t, p)


/*
** for some types, it is better to avoid modulus by power of 2, as
** they tend to have many 2 factors.
*/
#define hashmod(t,n)	(gnode(t, ((n) % ((sizenode(t)-1)|1))))


#define hashpointer(t,p)	hashmod(t, IntPoint(p))


/*
** number of ints inside a lua_Number
*/
#define numints		cast_int(sizeof(lua_Number)/sizeof(int))



#define dummynode		(&dummynode_)

static const Node dummynode_ = {
  {{NULL}, LUA_TNIL},  /* value */
  {{{NULL}, LUA_TNIL, NULL}},  /* key */
  -1  /* insertion rank */
};


/*
** hash for lua_Numbers
*/
static Node *hashnum (const Table *t, lua_Number n) {
  unsigned int a[numints];
  int i;
  if (luai_numeq(n, 0))  /* avoid problems with -0 */
    return gnode(t, 0);
  memcpy(a, &n, sizeof(a));
  for (i = 1; i < numints; i++) a[0] += a[i];
  return hashmod(t, a[0]);
}



/*
** returns the `main' position of an element in a table (that is, the index
** of its hash value)
*/
static Node *mainposition (const Table *t, const TValue *key) {
  switch (ttype(key)) {
    case LUA_TNUMBER:
      return hashnum(t, nvalue(key));
    case LUA_TSTRING:
      return hashstr(t, rawtsvalue(key));
    case LUA_TBOOLEAN:
      return hashboolean(t, bvalue(key));
    case LUA_TLIGHTUSERDATA:
      return hashpointer(t, pvalue(key));
    default:
      return hashpointer(t, gcvalue(key));
  }
}


/*
** returns the index for `key' if `key' is an appropriate key to live in
** the array part of the table, -1 otherwise.
*/
static int arrayindex (const TValue *key) {
  if (ttisnumber(key)) {
    lua_Number n = nvalue(key);
    int k;
    lua_number2int(k, n);
    if (luai_numeq(cast_num(k), n))
      return k;
  }
  return -1;  /* `key' did not match some condition */
}


/*
** karmada-interpreter: the insertion rank of hash key `key', or -1 when
** the table has no such key (gopher-lua's `next' then goes on as if the
** key had rank 0).
*/
static int hashrank (Table *t, StkId key) {
  Node *n = mainposition(t, key);
  do {  /* check whether `key' is somewhere in the chain */
    /* key may be dead already, but it is ok to use it in `next' */
    if (luaO_rawequalObj(key2tval(n), key) ||
          (ttype(gkey(n)) == LUA_TDEADKEY && iscollectable(key) &&
           gcvalue(gkey(n)) == gcvalue(key))) {
      lua_assert(n->i_ord < 0 || (n->i_ord < t->nord && t->ordv[n->i_ord] == n));
      return n->i_ord;
    }
    else n = gnext(n);
  } while (n);
  return -1;
}


/*
** karmada-interpreter: gopher-lua's `LTable.Next': the array part in
** index order, then the hash keys in first-insertion order. A key that is
** not in the table is no error: an integer key in [0, 2^26) past the
** array part, or any other absent key, continues after the first hash key.
*/
int luaH_next (lua_State *L, Table *t, StkId key) {
  int i;  /* next hash rank to look at */
  int k = -1;  /* next array index to look at (0-based) */
  UNUSED(L);
  luaH_lazycheck(t);
  if (ttisnil(key)) k = 0;
  else if (ttisnumber(key)) {
    lua_Number n = nvalue(key);
    int ik;
    lua_number2int(ik, n);
    if (luai_numeq(cast_num(ik), n) && 0 < ik && ik < MAXASIZE) k = ik;
  }
  if (k >= 0) {
    for (; k < t->alen; k++) {
      if (!ttisnil(&t->array[k])) {
        setnvalue(key, cast_num(k+1));
        setobj2s(L, key+1, &t->array[k]);
        return 1;
      }
    }
    i = (k == t->alen) ? 0 : 1;
  }
  else {
    i = hashrank(t, key);
    i = (i < 0) ? 1 : i + 1;
  }
  for (; i < t->nord; i++) {  /* the hash part, in insertion order */
    Node *n = t->ordv[i];
    if (n != NULL && !ttisnil(gval(n))) {  /* a non-nil value? */
      setobj2s(L, key, key2tval(n));
      setobj2s(L, key+1, gval(n));
      return 1;
    }
  }
  return 0;  /* no more elements */
}


/*
** {=============================================================
** Rehash
** ==============================================================
*/


static void setarrayvector (lua_State *L, Table *t, int size) {
  int i;
  luaM_reallocvector(L, t->array, t->sizearray, size, TValue);
  for (i=t->sizearray; i<size; i++)
     setnilvalue(&t->array[i]);
  t->sizearray = size;
}


static void setnodevector (lua_State *L, Table *t, int size) {
  int lsize;
  if (size == 0) {  /* no elements to hash part? */
    t->node = cast(Node *, dummynode);  /* use common `dummynode' */
    lsize = 0;
  }
  else {
    int i;
    lsize = ceillog2(size);
    if (lsize > MAXBITS)
      luaG_runerror(L, "table overflow");
    size = twoto(lsize);
    t->node = luaM_newvector(L, size, Node);
    for (i=0; i<size; i++) {
      Node *n = gnode(t, i);
      gnext(n) = NULL;
      setnilvalue(gkey(n));
      setnilvalue(gval(n));
      n->i_ord = -1;
    }
  }
  t->lsizenode = cast_byte(lsize);
  t->lastfree = gnode(t, size);  /* all positions are free */
}


static void resize (lua_State *L, Table *t, int nasize, int nhsize) {
  int i;
  int oldasize = t->sizearray;
  int oldhsize = t->lsizenode;
  Node *nold = t->node;  /* save old hash ... */
  Node **oldordv = t->ordv;  /* ... and its insertion order */
  int oldsizeordv = t->sizeordv;
  int oldnord = t->nord;
  /* room for every key the new hash part can hold, so that re-insertion
  ** never grows the order vector */
  int ordcap = (nhsize > 0) ? twoto(ceillog2(nhsize)) : 0;
  Node **nordv = (ordcap > 0) ? luaM_newvector(L, ordcap, Node *) : NULL;
  t->ordv = nordv;
  t->sizeordv = ordcap;
  t->nord = 0;
  if (nasize > oldasize)  /* array part must grow? */
    setarrayvector(L, t, nasize);
  /* create new hash part with appropriate size */
  setnodevector(L, t, nhsize);  
  if (nasize < oldasize) {  /* array part must shrink? */
    t->sizearray = nasize;
    /* re-insert elements from vanishing slice */
    for (i=nasize; i<oldasize; i++) {
      if (!ttisnil(&t->array[i]))
        setobjt2t(L, luaH_setnum(L, t, i+1), &t->array[i]);
    }
    /* shrink array */
    luaM_reallocvector(L, t->array, oldasize, nasize, TValue);
  }
  /* re-insert elements from hash part, in insertion order */
  for (i = 0; i < oldnord; i++) {
    Node *old = oldordv[i];
    if (old != NULL && (!ttisnil(gval(old)) || keptkey(old)))
      setobjt2t(L, luaH_set(L, t, key2tval(old)), gval(old));
  }
  luaM_freearray(L, oldordv, oldsizeordv, Node *);
  if (nold != dummynode)
    luaM_freearray(L, nold, twoto(oldhsize), Node);  /* free old array */
}


void luaH_resizearray (lua_State *L, Table *t, int nasize) {
  int nsize = (t->node == dummynode) ? 0 : sizenode(t);
  resize(L, t, nasize, nsize);
}


static void rehash (lua_State *L, Table *t, const TValue *ek) {
  luaH_lazycheck(t);
  /* karmada-interpreter: integer keys in [1, 2^26) never reach the hash
  ** part (they live in the array part, see `arrayslot'), so a rehash only
  ** resizes the hash part; the array part keeps its size */
  int i = sizenode(t);
  int totaluse = 1;  /* the extra key */
  UNUSED(ek);
  while (i--) {
    if (!ttisnil(gval(&t->node[i])) || keptkey(&t->node[i]))
      totaluse++;
  }
  resize(L, t, t->sizearray, totaluse);
}



/*
** }=============================================================
*/


Table *luaH_new (lua_State *L, int narray, int nhash) {
  Table *t = luaM_new(L, Table);
  luaC_link(L, obj2gco(t), LUA_TTABLE);
  t->metatable = NULL;
  t->flags = cast_byte(~0);
  /* temporary values (kept only if some malloc fails) */
  t->array = NULL;
  t->sizearray = 0;
  t->alen = 0;
  t->lsizenode = 0;
  t->node = cast(Node *, dummynode);
  t->ordv = NULL;
  t->sizeordv = 0;
  t->nord = 0;
  t->lazy = 0;
  t->plain = 0;
  t->lazyepoch = 0;
  t->origin = NULL;
  setarrayvector(L, t, narray);
  setnodevector(L, t, nhash);
  /* karmada-interpreter: room in the order vector for every key the hash
  ** part can hold, as `resize' gives it, so filling a table created at its
  ** final size never grows the vector */
  if (nhash > 0) {
    int ordcap = sizenode(t);
    t->ordv = luaM_newvector(L, ordcap, Node *);
    t->sizeordv = ordcap;
  }
  return t;
}


/*
** karmada-interpreter: copies the contents, layout, insertion order, array
** length and metatable of `src' into `t', whose array part, node vector
** and order vector already have `src''s sizes (at least, for the order
** vector).
*/
static void copycontents (lua_State *L, Table *t, Table *src) {
  int i;
  for (i = 0; i < src->sizearray; i++)
    setobj2t(L, &t->array[i], &src->array[i]);
  t->alen = src->alen;
  if (src->node != dummynode) {
    int size = sizenode(src);
    for (i = 0; i < size; i++) {
      Node *from = gnode(src, i);
      Node *to = gnode(t, i);
      setobj2t(L, gval(to), gval(from));
      setobj2t(L, key2tval(to), key2tval(from));
      gnext(to) = gnext(from) ? t->node + (gnext(from) - src->node) : NULL;
      to->i_ord = from->i_ord;
    }
    t->lastfree = t->node + (src->lastfree - src->node);
    for (i = 0; i < src->nord; i++)
      t->ordv[i] = src->ordv[i] ? t->node + (src->ordv[i] - src->node) : NULL;
    t->nord = src->nord;
  }
  t->metatable = src->metatable;
  t->flags = src->flags;
}


/*
** karmada-interpreter: a new table with the contents, layout, insertion
** order, array length and metatable of `src' (`next' visits the copy as it
** visits `src'). Used for the fresh global environment of a run.
*/
Table *luaH_clone (lua_State *L, Table *src) {
  Table *t;
  luaH_lazycheck(src);
  t = luaH_new(L, src->sizearray, 0);
  if (src->node != dummynode) {
    setnodevector(L, t, sizenode(src));
    if (src->sizeordv > 0) {
      t->ordv = luaM_newvector(L, src->sizeordv, Node *);
      t->sizeordv = src->sizeordv;
    }
  }
  copycontents(L, t, src);
  return t;
}


/*
** karmada-interpreter: makes `t' a copy of `src' in place when both have
** the same sizes; returns 0, leaving `t' alone, when they do not. A run's
** global environment is reset this way from its template instead of being
** copied anew.
*/
int luaH_reset (lua_State *L, Table *t, Table *src) {
  luaH_lazycheck(src);
  luaH_lazycheck(t);
  if (t == src || t->sizearray != src->sizearray || t->lsizenode != src->lsizenode
      || (t->node == dummynode) != (src->node == dummynode)
      || t->sizeordv < src->nord)
    return 0;
  copycontents(L, t, src);
  t->origin = NULL;
  if (isblack(obj2gco(t)))
    luaC_barrierback(L, t);  /* it may now hold white objects */
  return 1;
}


/*
** karmada-interpreter: lazily converted tables.
**
** The host hands a script its input object as tables made on first use:
** `luaH_newlazy' makes an empty table marked `lazy' with the host value it
** stands for (`origin'), and the first access to it through any of the
** functions below (`luaH_lazycheck') calls the host's expander, which
** sizes the table (`luaH_lazysize') and fills it with the value's members,
** whose own objects and lists are again lazy tables. A script sees exactly
** the tables an eager conversion would have made (same contents, insertion
** order and array length); only what it touches is ever made.
**
** The expander, the state and the current run's epoch are kept per thread
** between `luaH_lazybegin' and `luaH_lazyend' (the host's value outlives
** that span and no longer); a lazy table of another run is never expanded
** (it reads as empty, and no script can reach one). `lazy_written' is set
** when a table made from a host value is written after it was filled, so
** that the host can tell whether such a table still equals its origin.
*/
#if defined(_MSC_VER)
#define LUAI_TLS __declspec(thread)
#else
#define LUAI_TLS __thread
#endif

static LUAI_TLS lua_State *lazy_L = NULL;
static LUAI_TLS void (*lazy_fn) (lua_State *L, void *t, const void *origin) = NULL;
static LUAI_TLS unsigned int lazy_epoch = 0;
static LUAI_TLS int lazy_written = 0;

#define notewrite(t)	{ if ((t)->origin != NULL) lazy_written = 1; }

void luaH_lazybegin (lua_State *L, void (*expand) (lua_State *L, void *t, const void *origin)) {
  lazy_L = L;
  lazy_fn = expand;
  lazy_epoch++;
  if (lazy_epoch == 0) lazy_epoch = 1;
  lazy_written = 0;
}


void luaH_lazyend (void) {
  lazy_L = NULL;
  lazy_fn = NULL;
  lazy_epoch++;
  if (lazy_epoch == 0) lazy_epoch = 1;
  lazy_written = 0;
}


Table *luaH_newlazy (lua_State *L, const void *origin) {
  Table *t = luaH_new(L, 0, 0);
  t->lazy = 1;
  t->lazyepoch = lazy_epoch;
  t->origin = origin;
  return t;
}


void luaH_expand (Table *t) {
  int written = lazy_written;
  t->lazy = 0;
  if (lazy_L != NULL && lazy_fn != NULL && t->lazyepoch == lazy_epoch)
    lazy_fn(lazy_L, t, t->origin);
  else
    t->origin = NULL;
  lazy_written = written;  /* filling it is no write */
}


void luaH_lazysize (lua_State *L, Table *t, int narray, int nhash) {
  if (narray > 0)
    setarrayvector(L, t, narray);
  if (nhash > 0 && t->node == dummynode) {
    setnodevector(L, t, nhash);
    t->ordv = luaM_newvector(L, sizenode(t), Node *);
    t->sizeordv = sizenode(t);
  }
}


const void *luaH_lazyorigin (const Table *t) {
  if (t->lazy && lazy_L != NULL && t->lazyepoch == lazy_epoch)
    return t->origin;
  return NULL;
}


const void *luaH_origin (const Table *t) {
  if (t->origin != NULL && lazy_L != NULL && t->lazyepoch == lazy_epoch
      && !lazy_written)
    return t->origin;
  return NULL;
}



void luaH_free (lua_State *L, Table *t) {
  if (t->node != dummynode)
    luaM_freearray(L, t->node, sizenode(t), Node);
  luaM_freearray(L, t->ordv, t->sizeordv, Node *);
  luaM_freearray(L, t->array, t->sizearray, TValue);
  luaM_free(L, t);
}


static Node *getfreepos (Table *t) {
  while (t->lastfree-- > t->node) {
    if (ttisnil(gkey(t->lastfree)))
      return t->lastfree;
  }
  return NULL;  /* could not find a free place */
}



/*
** inserts a new key into a hash table; first, check whether key's main 
** position is free. If not, check whether colliding node is in its main 
** position or not: if it is not, move colliding node to an empty place and 
** put new key in its main position; otherwise (colliding node is in its main 
** position), new key goes to an empty position. 
*/
static TValue *newkey (lua_State *L, Table *t, const TValue *key) {
  Node *mp = mainposition(t, key);
  /* karmada-interpreter: a node whose key was deleted (nil value) is taken
  ** only when the collector has dropped its key (weak-keyed tables): a
  ** deleted key keeps its node and insertion rank, as in gopher-lua */
  if (!ttisnil(gval(mp)) || keptkey(mp) || mp == dummynode) {
    Node *othern;
    Node *n = getfreepos(t);  /* get a free place */
    if (n == NULL) {  /* cannot find a free place? */
      rehash(L, t, key);  /* grow table */
      return luaH_set(L, t, key);  /* re-insert key into grown table */
    }
    lua_assert(n != dummynode);
    othern = mainposition(t, key2tval(mp));
    if (othern != mp) {  /* is colliding node out of its main position? */
      /* yes; move colliding node into free position */
      while (gnext(othern) != mp) othern = gnext(othern);  /* find previous */
      gnext(othern) = n;  /* redo the chain with `n' in place of `mp' */
      *n = *mp;  /* copy colliding node into free pos. (mp->next also goes) */
      if (n->i_ord >= 0) t->ordv[n->i_ord] = n;  /* the rank moves along */
      mp->i_ord = -1;
      gnext(mp) = NULL;  /* now `mp' is free */
      setnilvalue(gval(mp));
    }
    else {  /* colliding node is in its own main position */
      /* new node will go into free position */
      gnext(n) = gnext(mp);  /* chain new position */
      gnext(mp) = n;
      mp = n;
    }
  }
  /* karmada-interpreter: the new key takes the next insertion rank; a
  ** dead key whose node is reused loses its rank */
  if (t->nord >= t->sizeordv)
    luaM_growvector(L, t->ordv, t->nord, t->sizeordv, Node *, MAX_INT,
                    "table overflow");
  if (mp->i_ord >= 0) t->ordv[mp->i_ord] = NULL;
  mp->i_ord = t->nord;
  t->ordv[t->nord++] = mp;
  gkey(mp)->value = key->value; gkey(mp)->tt = key->tt;
  luaC_barriert(L, t, key);
  lua_assert(ttisnil(gval(mp)));
  return gval(mp);
}


/*
** search function for integers
*/
const TValue *luaH_getnum (Table *t, int key) {
  luaH_lazycheck(t);
  /* (1 <= key && key <= t->sizearray) */
  if (cast(unsigned int, key-1) < cast(unsigned int, t->sizearray))
    return &t->array[key-1];
  else {
    lua_Number nk = cast_num(key);
    Node *n = hashnum(t, nk);
    do {  /* check whether `key' is somewhere in the chain */
      if (ttisnumber(gkey(n)) && luai_numeq(nvalue(gkey(n)), nk))
        return gval(n);  /* that's it */
      else n = gnext(n);
    } while (n);
    return luaO_nilobject;
  }
}


/*
** search function for strings
*/
const TValue *luaH_getstr (Table *t, TString *key) {
  Node *n;
  luaH_lazycheck(t);
  n = hashstr(t, key);
  do {  /* check whether `key' is somewhere in the chain */
    if (ttisstring(gkey(n)) && rawtsvalue(gkey(n)) == key)
      return gval(n);  /* that's it */
    else n = gnext(n);
  } while (n);
  return luaO_nilobject;
}


/*
** main search function
*/
const TValue *luaH_get (Table *t, const TValue *key) {
  luaH_lazycheck(t);
  switch (ttype(key)) {
    case LUA_TNIL: return luaO_nilobject;
    case LUA_TSTRING: return luaH_getstr(t, rawtsvalue(key));
    case LUA_TNUMBER: {
      int k;
      lua_Number n = nvalue(key);
      lua_number2int(k, n);
      if (luai_numeq(cast_num(k), nvalue(key))) /* index is int? */
        return luaH_getnum(t, k);  /* use specialized version */
      /* else go through */
    }
    default: {
      Node *n = mainposition(t, key);
      do {  /* check whether `key' is somewhere in the chain */
        if (luaO_rawequalObj(key2tval(n), key))
          return gval(n);  /* that's it */
        else n = gnext(n);
      } while (n);
      return luaO_nilobject;
    }
  }
}


/*
** karmada-interpreter: the array slot of integer key `key' in [1, 2^26),
** as gopher-lua's `RawSetInt': the array part grows to hold it (doubling,
** so appending stays amortized constant) and gopher-lua's array length
** becomes at least `key', whatever value is then stored.
*/
static TValue *arrayslot (lua_State *L, Table *t, int key) {
  if (key > t->sizearray) {
    int size = t->sizearray * 2;
    if (size < 4) size = 4;
    if (size < key) size = key;
    if (size > MAXASIZE - 1) size = MAXASIZE - 1;
    setarrayvector(L, t, size);
  }
  if (key > t->alen) t->alen = key;
  return &t->array[key-1];
}

#define isarraykey(k)	(0 < (k) && (k) < MAXASIZE)


TValue *luaH_set (lua_State *L, Table *t, const TValue *key) {
  const TValue *p;
  luaH_lazycheck(t);
  notewrite(t);
  if (ttisnumber(key)) {
    int k;
    lua_Number n = nvalue(key);
    lua_number2int(k, n);
    if (luai_numeq(cast_num(k), n) && isarraykey(k) && !t->plain) {
      t->flags = 0;
      return arrayslot(L, t, k);
    }
  }
  p = luaH_get(t, key);
  t->flags = 0;
  if (p != luaO_nilobject)
    return cast(TValue *, p);
  else {
    if (ttisnil(key)) luaG_runerror(L, "table index is nil");
    else if (ttisnumber(key) && luai_numisnan(nvalue(key)))
      luaG_runerror(L, "table index is NaN");
    return newkey(L, t, key);
  }
}


TValue *luaH_setnum (lua_State *L, Table *t, int key) {
  const TValue *p;
  luaH_lazycheck(t);
  notewrite(t);
  if (isarraykey(key) && !t->plain)
    return arrayslot(L, t, key);
  p = luaH_getnum(t, key);
  if (p != luaO_nilobject)
    return cast(TValue *, p);
  else {
    TValue k;
    setnvalue(&k, cast_num(key));
    return newkey(L, t, &k);
  }
}


TValue *luaH_setstr (lua_State *L, Table *t, TString *key) {
  const TValue *p;
  luaH_lazycheck(t);
  notewrite(t);
  p = luaH_getstr(t, key);
  if (p != luaO_nilobject)
    return cast(TValue *, p);
  else {
    TValue k;
    setsvalue(L, &k, key);
    return newkey(L, t, &k);
  }
}


/*
** karmada-interpreter: gopher-lua's `LTable.Len': the largest index of the
** array part holding a non-nil value (every integer key in [1, 2^26) is
** in the array part), 0 when there is none.
*/
int luaH_getn (Table *t) {
  int j;
  luaH_lazycheck(t);
  j = t->alen;
  while (j > 0 && ttisnil(&t->array[j - 1])) j--;
  return j;
}


/*
** karmada-interpreter: gopher-lua's array length (`len(tb.array)'), which
** `table.insert' and `table.remove' work on.
*/
int luaH_arraylen (Table *t) {
  luaH_lazycheck(t);
  return t->alen;
}


/*
** karmada-interpreter: shortens gopher-lua's array length to `n' (as
** slicing the Go array does): the slots from `n' on become nil.
*/
void luaH_setarraylen (Table *t, int n) {
  int i;
  luaH_lazycheck(t);
  notewrite(t);
  if (n < 0) n = 0;
  for (i = n; i < t->alen; i++) setnilvalue(&t->array[i]);
  if (n < t->alen) t->alen = n;
}



#if defined(LUA_DEBUG)

Node *luaH_mainposition (const Table *t, const TValue *key) {
  return mainposition(t, key);
}

int luaH_isdummy (Node *n) { return n == dummynode; }

#endif
