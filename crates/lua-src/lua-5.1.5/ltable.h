/*
** $Id: ltable.h,v 2.10.1.1 2007/12/27 13:02:25 roberto Exp $
** Lua tables (hash)
** See Copyright Notice in lua.h
*/

#ifndef ltable_h
#define ltable_h

#include "lobject.h"


#define gnode(t,i)	(&(t)->node[i])
#define gkey(n)		(&(n)->i_key.nk)
#define gval(n)		(&(n)->i_val)
#define gnext(n)	((n)->i_key.nk.next)

#define key2tval(n)	(&(n)->i_key.tvk)


LUAI_FUNC const TValue *luaH_getnum (Table *t, int key);
LUAI_FUNC TValue *luaH_setnum (lua_State *L, Table *t, int key);
LUAI_FUNC const TValue *luaH_getstr (Table *t, TString *key);
LUAI_FUNC TValue *luaH_setstr (lua_State *L, Table *t, TString *key);
LUAI_FUNC const TValue *luaH_get (Table *t, const TValue *key);
LUAI_FUNC TValue *luaH_set (lua_State *L, Table *t, const TValue *key);
LUAI_FUNC Table *luaH_new (lua_State *L, int narray, int lnhash);
LUAI_FUNC void luaH_resizearray (lua_State *L, Table *t, int nasize);
LUAI_FUNC void luaH_free (lua_State *L, Table *t);
/* karmada-interpreter */
LUAI_FUNC Table *luaH_clone (lua_State *L, Table *src);
LUAI_FUNC int luaH_reset (lua_State *L, Table *t, Table *src);
/* karmada-interpreter: lazily converted tables */
LUAI_FUNC void luaH_expand (Table *t);
#define luaH_lazycheck(t)	{ if ((t)->lazy) luaH_expand(t); }
LUAI_FUNC void luaH_lazysize (lua_State *L, Table *t, int narray, int nhash);
LUAI_FUNC Table *luaH_newlazy (lua_State *L, const void *origin);
LUAI_FUNC const void *luaH_origin (const Table *t);
LUAI_FUNC const void *luaH_lazyorigin (const Table *t);
LUAI_FUNC void luaH_lazybegin (lua_State *L, void (*expand) (lua_State *L, void *t, const void *origin));
LUAI_FUNC void luaH_lazyend (void);
LUAI_FUNC int luaH_next (lua_State *L, Table *t, StkId key);
LUAI_FUNC int luaH_getn (Table *t);
/* karmada-interpreter: gopher-lua's array length */
LUAI_FUNC int luaH_arraylen (Table *t);
LUAI_FUNC void luaH_setarraylen (Table *t, int n);


#if defined(LUA_DEBUG)
LUAI_FUNC Node *luaH_mainposition (const Table *t, const TValue *key);
LUAI_FUNC int luaH_isdummy (Node *n);
#endif


#endif
