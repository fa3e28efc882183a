/*
** $Id: ltablib.c,v 1.38.1.3 2008/02/14 16:46:58 roberto Exp $
** Library for Table Manipulation
** See Copyright Notice in lua.h
*/


#include <stddef.h>

#define ltablib_c
#define LUA_LIB

#include "lua.h"

#include "lauxlib.h"
#include "lualib.h"


#define aux_getn(L,n)	(luaL_checktype(L, n, LUA_TTABLE), luaL_getn(L, n))


static int foreachi (lua_State *L) {
  int i;
  int n = aux_getn(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  for (i=1; i <= n; i++) {
    lua_pushvalue(L, 2);  /* function */
    lua_pushinteger(L, i);  /* 1st argument */
    lua_rawgeti(L, 1, i);  /* 2nd argument */
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1))
      return 1;
    lua_pop(L, 1);  /* remove nil result */
  }
  return 0;
}


static int foreach (lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushnil(L);  /* first key */
  while (lua_next(L, 1)) {
    lua_pushvalue(L, 2);  /* function */
    lua_pushvalue(L, -3);  /* key */
    lua_pushvalue(L, -3);  /* value */
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1))
      return 1;
    lua_pop(L, 2);  /* remove value and result */
  }
  return 0;
}


/* karmada-interpreter: gopher-lua's MaxN is its length (`#') */
static int maxn (lua_State *L) {
  lua_pushinteger(L, aux_getn(L, 1));
  return 1;
}


static int getn (lua_State *L) {
  lua_pushinteger(L, aux_getn(L, 1));
  return 1;
}


static int setn (lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
#ifndef luaL_setn
  luaL_setn(L, 1, luaL_checkint(L, 2));
#else
  luaL_error(L, LUA_QL("setn") " is obsolete");
#endif
  lua_pushvalue(L, 1);
  return 1;
}


/*
** karmada-interpreter: `table.insert' and `table.remove' are gopher-lua's,
** which work on the length of its array part (`lua_arraylen': the largest
** integer key ever set, nil included, less what `remove' took away), take
** positions that must be numbers (no string coercion; fractions are
** truncated), and never fail on a position out of range.
*/
static int gopher_checkint (lua_State *L, int narg) {
  lua_Number d;
  if (lua_type(L, narg) != LUA_TNUMBER)
    luaL_typerror(L, narg, lua_typename(L, LUA_TNUMBER));
  d = lua_tonumber(L, narg);
  if (d >= 2147483647.0) return 2147483647;
  if (d <= -2147483647.0 || d != d) return -2147483647;
  return (int)d;  /* truncation, as Go's int(float64) */
}


static int tinsert (lua_State *L) {
  int nargs = lua_gettop(L);
  int alen, pos, i;
  luaL_checktype(L, 1, LUA_TTABLE);
  if (nargs == 1)
    return luaL_error(L, "wrong number of arguments");
  alen = lua_arraylen(L, 1);
  if (nargs == 2) {  /* gopher-lua's Append */
    if (lua_isnil(L, 2)) return 0;
    if (alen == 0) pos = 1;
    else {
      lua_rawgeti(L, 1, alen);
      if (!lua_isnil(L, -1)) pos = alen + 1;
      else {  /* after the last non-nil element */
        for (i = alen - 1; i >= 1; i--) {
          lua_rawgeti(L, 1, i);
          if (!lua_isnil(L, -1)) break;
          lua_pop(L, 1);
        }
        pos = i + 1;
      }
    }
    lua_settop(L, 2);
    lua_rawseti(L, 1, pos);
    return 0;
  }
  pos = gopher_checkint(L, 2);
  lua_settop(L, 3);
  if (pos > alen) {
    lua_rawseti(L, 1, pos);
  }
  else if (pos <= 0) {
    lua_pushnumber(L, (lua_Number)pos);
    lua_insert(L, -2);
    lua_rawset(L, 1);
  }
  else {
    for (i = alen; i >= pos; i--) {  /* move up elements */
      lua_rawgeti(L, 1, i);
      lua_rawseti(L, 1, i + 1);  /* t[i+1] = t[i] */
    }
    lua_rawseti(L, 1, pos);  /* t[pos] = v */
  }
  return 0;
}


static int tremove (lua_State *L) {
  int alen, pos, i;
  luaL_checktype(L, 1, LUA_TTABLE);
  pos = (lua_gettop(L) == 1) ? -1 : gopher_checkint(L, 2);
  alen = lua_arraylen(L, 1);
  if (alen == 0 || pos - 1 >= alen) {
    lua_pushnil(L);
    return 1;
  }
  if (pos == alen || pos < 1) {  /* the last slot, whatever it holds */
    lua_rawgeti(L, 1, alen);
  }
  else {
    lua_rawgeti(L, 1, pos);
    for (i = pos; i < alen; i++) {
      lua_rawgeti(L, 1, i + 1);
      lua_rawseti(L, 1, i);  /* t[i] = t[i+1] */
    }
  }
  lua_setarraylen(L, 1, alen - 1);
  return 1;
}


static void addfield (lua_State *L, luaL_Buffer *b, int i) {
  lua_rawgeti(L, 1, i);
  if (!lua_isstring(L, -1))
    luaL_error(L, "invalid value (%s) at index %d in table for "
                  LUA_QL("concat"), luaL_typename(L, -1), i);
    luaL_addvalue(b);
}


static int tconcat (lua_State *L) {
  luaL_Buffer b;
  size_t lsep;
  int i, last;
  const char *sep = luaL_optlstring(L, 2, "", &lsep);
  luaL_checktype(L, 1, LUA_TTABLE);
  i = luaL_optint(L, 3, 1);
  last = luaL_opt(L, luaL_checkint, 4, luaL_getn(L, 1));
  luaL_buffinit(L, &b);
  for (; i < last; i++) {
    addfield(L, &b, i);
    luaL_addlstring(&b, sep, lsep);
  }
  if (i == last)  /* add last value (if interval was not empty) */
    addfield(L, &b, i);
  luaL_pushresult(&b);
  return 1;
}



/*
** {======================================================
** Quicksort
** (based on `Algorithms in MODULA-3', Robert Sedgewick;
**  Addison-Wesley, 1993.)
*/


static void set2 (lua_State *L, int i, int j) {
  lua_rawseti(L, 1, i);
  lua_rawseti(L, 1, j);
}

static int sort_comp (lua_State *L, int a, int b) {
  if (!lua_isnil(L, 2)) {  /* function? */
    int res;
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a-1);  /* -1 to compensate function */
    lua_pushvalue(L, b-2);  /* -2 to compensate function and `a' */
    lua_call(L, 2, 1);
    res = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return res;
  }
  else  /* a < b? */
    return lua_lessthan(L, a, b);
}

/*
** karmada-interpreter: `table.sort' is gopher-lua's, which hands the
** array part to Go's sort.Sort: pattern-defeating quicksort as in Go's
** sort package (Go 1.21 and later). Elements that compare equal end in
** the same order as there, and an inconsistent order function never
** raises an error (the order is then unspecified, as in Go). Indices
** below are 0-based like Go's; element i is t[i + 1].
*/
static int go_less (lua_State *L, int i, int j) {
  int r;
  lua_rawgeti(L, 1, i + 1);
  lua_rawgeti(L, 1, j + 1);
  r = sort_comp(L, -2, -1);
  lua_pop(L, 2);
  return r;
}

static void go_swap (lua_State *L, int i, int j) {
  lua_rawgeti(L, 1, i + 1);
  lua_rawgeti(L, 1, j + 1);
  set2(L, i + 1, j + 1);
}

static void go_insertion_sort (lua_State *L, int a, int b) {
  int i, j;
  for (i = a + 1; i < b; i++)
    for (j = i; j > a && go_less(L, j, j - 1); j--)
      go_swap(L, j, j - 1);
}

static void go_sift_down (lua_State *L, int lo, int hi, int first) {
  int root = lo;
  for (;;) {
    int child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && go_less(L, first + child, first + child + 1))
      child++;
    if (!go_less(L, first + root, first + child)) return;
    go_swap(L, first + root, first + child);
    root = child;
  }
}

static void go_heap_sort (lua_State *L, int a, int b) {
  int first = a, lo = 0, hi = b - a, i;
  for (i = (hi - 1) / 2; i >= 0; i--)
    go_sift_down(L, i, hi, first);
  for (i = hi - 1; i >= 0; i--) {
    go_swap(L, first, first + i);
    go_sift_down(L, lo, i, first);
  }
}

static int go_bits_len (unsigned long long x) {
  int n = 0;
  while (x != 0) { n++; x >>= 1; }
  return n;
}

static void go_break_patterns (lua_State *L, int a, int b) {
  int length = b - a;
  if (length >= 8) {
    unsigned long long random = (unsigned long long)length;
    unsigned long long modulus = 1ULL << go_bits_len((unsigned long long)length);
    int idx;
    for (idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; idx++) {
      int other;
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      other = (int)(random & (modulus - 1));
      if (other >= length) other -= length;
      go_swap(L, idx, a + other);
    }
  }
}

#define GO_UNKNOWN_HINT 0
#define GO_INCREASING_HINT 1
#define GO_DECREASING_HINT 2

static void go_order2 (lua_State *L, int *a, int *b, int *swaps) {
  if (go_less(L, *b, *a)) {
    int t = *a; *a = *b; *b = t;
    (*swaps)++;
  }
}

static int go_median (lua_State *L, int a, int b, int c, int *swaps) {
  go_order2(L, &a, &b, swaps);
  go_order2(L, &b, &c, swaps);
  go_order2(L, &a, &b, swaps);
  return b;
}

static int go_choose_pivot (lua_State *L, int a, int b, int *hint) {
  int l = b - a, swaps = 0;
  int i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
  if (l >= 8) {
    if (l >= 50) {  /* Tukey's ninther */
      i = go_median(L, i - 1, i, i + 1, &swaps);
      j = go_median(L, j - 1, j, j + 1, &swaps);
      k = go_median(L, k - 1, k, k + 1, &swaps);
    }
    j = go_median(L, i, j, k, &swaps);
  }
  *hint = swaps == 0 ? GO_INCREASING_HINT
        : swaps == 12 ? GO_DECREASING_HINT : GO_UNKNOWN_HINT;
  return j;
}

static void go_reverse_range (lua_State *L, int a, int b) {
  int i = a, j = b - 1;
  while (i < j) { go_swap(L, i, j); i++; j--; }
}

static int go_partial_insertion_sort (lua_State *L, int a, int b) {
  int i = a + 1, step, j;
  for (step = 0; step < 5; step++) {
    while (i < b && !go_less(L, i, i - 1)) i++;
    if (i == b) return 1;
    if (b - a < 50) return 0;
    go_swap(L, i, i - 1);
    if (i - a >= 2) {
      for (j = i - 1; j >= 1; j--) {
        if (!go_less(L, j, j - 1)) break;
        go_swap(L, j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (j = i + 1; j < b; j++) {
        if (!go_less(L, j, j - 1)) break;
        go_swap(L, j, j - 1);
      }
    }
  }
  return 0;
}

static int go_partition_equal (lua_State *L, int a, int b, int pivot) {
  int i = a + 1, j = b - 1;
  go_swap(L, a, pivot);
  for (;;) {
    while (i <= j && !go_less(L, a, i)) i++;
    while (i <= j && go_less(L, a, j)) j--;
    if (i > j) break;
    go_swap(L, i, j);
    i++; j--;
  }
  return i;
}

static int go_partition (lua_State *L, int a, int b, int pivot,
                         int *already) {
  int i = a + 1, j = b - 1;
  go_swap(L, a, pivot);
  while (i <= j && go_less(L, i, a)) i++;
  while (i <= j && !go_less(L, j, a)) j--;
  if (i > j) {
    go_swap(L, j, a);
    *already = 1;
    return j;
  }
  go_swap(L, i, j);
  i++; j--;
  for (;;) {
    while (i <= j && go_less(L, i, a)) i++;
    while (i <= j && !go_less(L, j, a)) j--;
    if (i > j) break;
    go_swap(L, i, j);
    i++; j--;
  }
  go_swap(L, j, a);
  *already = 0;
  return j;
}

static void go_pdqsort (lua_State *L, int a, int b, int limit) {
  int was_balanced = 1, was_partitioned = 1;
  for (;;) {
    int length = b - a, pivot, hint, mid, already;
    if (length <= 12) {
      go_insertion_sort(L, a, b);
      return;
    }
    if (limit == 0) {
      go_heap_sort(L, a, b);
      return;
    }
    if (!was_balanced) {
      go_break_patterns(L, a, b);
      limit--;
    }
    pivot = go_choose_pivot(L, a, b, &hint);
    if (hint == GO_DECREASING_HINT) {
      go_reverse_range(L, a, b);
      pivot = (b - 1) - (pivot - a);
      hint = GO_INCREASING_HINT;
    }
    if (was_balanced && was_partitioned && hint == GO_INCREASING_HINT) {
      if (go_partial_insertion_sort(L, a, b)) return;
    }
    if (a > 0 && !go_less(L, a - 1, pivot)) {
      a = go_partition_equal(L, a, b, pivot);
      continue;
    }
    mid = go_partition(L, a, b, pivot, &already);
    was_partitioned = already;
    if (mid - a < b - mid) {
      was_balanced = mid - a >= length / 8;
      go_pdqsort(L, a, mid, limit);
      a = mid + 1;
    }
    else {
      was_balanced = b - mid >= length / 8;
      go_pdqsort(L, mid + 1, b, limit);
      b = mid;
    }
  }
}

static int sort (lua_State *L) {
  int n;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = lua_arraylen(L, 1);  /* gopher-lua sorts its whole array part */
  luaL_checkstack(L, 40, "");
  if (lua_gettop(L) != 1)  /* gopher-lua: a second argument must be a function */
    luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_settop(L, 2);  /* make sure there is two arguments */
  if (n > 1)
    go_pdqsort(L, 0, n, go_bits_len((unsigned long long)n));
  return 0;
}

/* }====================================================== */


static const luaL_Reg tab_funcs[] = {
  {"concat", tconcat},
  {"foreach", foreach},
  {"foreachi", foreachi},
  {"getn", getn},
  {"maxn", maxn},
  {"insert", tinsert},
  {"remove", tremove},
  {"setn", setn},
  {"sort", sort},
  {NULL, NULL}
};


LUALIB_API int luaopen_table (lua_State *L) {
  luaL_register(L, LUA_TABLIBNAME, tab_funcs);
  return 1;
}

