-- Builds the sandboxed environment of karmada-interpreter's Lua engine.
-- Runs once per VM with the VM's raw globals; the
-- scripts never see those: every run gets a fresh environment table from
-- `newenv`, whose reads fall through to the read-only prototype built here.
local H = ...

local rawpcall, rawxpcall, setfenv, setmetatable, getmetatable, rawget =
  pcall, xpcall, setfenv, setmetatable, getmetatable, rawget
local type, error, select, tostring_raw = type, error, select, tostring
local tconcat = table.concat
local ssub, sbyte, schar, sreverse, slen =
  string.sub, string.byte, string.char, string.reverse, string.len
local check, refused = H.check, H.refused
-- Raises `message` from the host, so it gets the position of the script
-- line that called the library function (as gopher-lua's helpers do).
local raise = H.raise

-- Raises a sandbox refusal: the host records the message first, so the
-- failure is reported as a refusal by type. `level` counts from the caller
-- of `refuse`, as `error`'s does.
local function refuse(message, level)
  refused(message)
  error(message, level + 1)
end

local NOT_SUPPORTED = " is not supported in karmada customized resourceinterpreter."
-- Karmada defines these in a chunk of its own: the error names line 1 of it.
local function disabled(name)
  return function()
    refuse("<string>:1: call function " .. name .. NOT_SUPPORTED, -1)
  end
end
local function unsupported_string(name)
  return function()
    refuse("The Lua function string." .. name .. " is not supported by Karmada. If you believe "
      .. "this function is essential for your use case, please submit an issue to let us know why you need it.", 2)
  end
end

-- pcall/xpcall re-raise once the deadline has passed, so a script cannot
-- swallow the deadline by catching it in a loop.
-- A caught error a host helper raised reaches the handler as its text (with
-- the script position), as gopher-lua's errors do.
local errtext = H.errtext
local function pass(ok, ...)
  check()
  if not ok and type((...)) == "userdata" then
    return ok, errtext((...))
  end
  return ok, ...
end
local function pcall_(...)
  -- gopher-lua's pcall: a value that is not a function is a failed call,
  -- not an error of pcall itself
  if select("#", ...) == 0 then
    raise("bad argument #1 to pcall (value expected)")
  end
  local f = ...
  if type(f) ~= "function" then
    return false, "attempt to call a " .. type(f) .. " value"
  end
  return pass(rawpcall(...))
end
-- Lua 5.1 runs an error handler with hooks disabled when the error was
-- raised by a hook (the deadline): a looping handler would then never be
-- stopped. The handler is therefore skipped once the deadline has passed.
-- As in gopher-lua, both arguments must be functions, and an error the
-- handler raises is what xpcall returns.
local expired = H.expired
local function xpcall_(f, handler)
  if type(f) ~= "function" then
    raise("bad argument #1 to xpcall (function expected, got " .. type(f) .. ")")
  end
  if type(handler) ~= "function" then
    raise("bad argument #2 to xpcall (function expected, got " .. type(handler) .. ")")
  end
  return pass(rawxpcall(f, function(e)
    if expired() then
      return e
    end
    if type(e) == "userdata" then
      e = errtext(e)
    end
    local ok, r = rawpcall(handler, e)
    if not ok and type(r) == "userdata" then
      r = errtext(r)
    end
    return r
  end))
end

-- gopher-lua's error: a value that is not a string is raised as it is (no
-- position, `error(42)` stays a number); a string gets the position of the
-- first script frame from `level` up (gopher-lua counts `error` itself as
-- level 0, so levels 1 and 2 both name the line that called it).
local rawerror, where = error, H.where
local function error_(...)
  if select("#", ...) == 0 then
    raise("bad argument #1 to error (value expected)")
  end
  local message, level = ...
  if type(message) ~= "string" then
    rawerror(message, 0)
  end
  if level == nil then
    level = 1
  elseif type(level) ~= "number" then
    raise("bad argument #2 to error (number expected, got " .. type(level) .. ")")
  end
  if level > 0 then
    message = where(level) .. " " .. message
  end
  rawerror(message, 0)
end

-- gopher-lua's select: a string count other than "#" is refused
local rawselect = select
local function select_(n, ...)
  local tn = type(n)
  if tn == "string" then
    if n ~= "#" then
      raise("bad argument #1 to select (invalid string '" .. n .. "')")
    end
  elseif tn ~= "number" then
    raise("bad argument #1 to select (number expected, got " .. tn .. ")")
  elseif n == 0 or (n < 0 and -n > rawselect("#", ...)) then
    raise("bad argument #1 to select (index out of range)")
  end
  return rawselect(n, ...)
end

-- string library
local LIMIT = 1000000
local function lim(s)
  if type(s) == "string" and #s > LIMIT then
    raise("string length " .. #s .. " exceeds the maximum allowed input string length 1000000 "
      .. "in Karmada lua string lib, please check your lua script.")
  end
end

-- Argument errors of the wrappers below, in gopher-lua's words and at the
-- caller's position (not inside the wrapper).
local function badarg(n, fname, expected, v)
  raise("bad argument #" .. n .. " to " .. fname .. " (" .. expected .. " expected, got " .. type(v) .. ")")
end
-- the subject of a string function: a string (or a number), within the limit
local function subject(s, fname)
  local t = type(s)
  if t ~= "string" and t ~= "number" then
    badarg(1, fname, "string", s)
  end
  lim(s)
end
local function optnum(v, n, fname)
  if v ~= nil and type(v) ~= "number" then
    badarg(n, fname, "number", v)
  end
end

local S = {}
S.len = slen
S.sub = function(s, i, j)
  subject(s, "sub")
  if type(i) ~= "number" then
    badarg(2, "sub", "number", i)
  end
  optnum(j, 3, "sub")
  return ssub(s, i, j)
end
S.upper = function(s)
  lim(s)
  return H.upper(s)
end
S.lower = function(s)
  lim(s)
  return H.lower(s)
end
S.reverse = function(s)
  subject(s, "reverse")
  return sreverse(s)
end
-- gopher-lua's byte: with no index, every byte
S.byte = function(...)
  local s, i, j = ...
  subject(s, "byte")
  optnum(i, 2, "byte")
  optnum(j, 3, "byte")
  if select("#", ...) == 2 then
    return sbyte(s, i or 1)
  end
  return sbyte(s, i or 1, j or -1)
end
S.char = function(...)
  local n = select("#", ...)
  local t = { ... }
  for i = 1, n do
    if type(t[i]) ~= "number" then
      badarg(i, "char", "number", t[i])
    end
    t[i] = t[i] % 256
  end
  return schar(unpack(t, 1, n))
end
S.find = function(...)
  local n = select("#", ...)
  local s, p, init, plain = ...
  lim(s)
  lim(p)
  if p == "" then
    return 1, 0
  end
  return H.find(s, p, init, n == 4 and plain and true or false)
end
S.match = function(s, p, init)
  lim(s)
  lim(p)
  return H.match(s, p, init)
end
S.gmatch = function(s, p)
  lim(s)
  lim(p)
  local all = H.gmatch(s, p)
  local i = 0
  return function()
    i = i + 1
    local m = all[i]
    if m ~= nil then
      return unpack(m)
    end
  end
end
S.gfind = S.gmatch
S.format = function(fmt, ...)
  lim(fmt)
  return H.format(fmt, ...)
end
S.gsub = unsupported_string("gsub")
S.rep = unsupported_string("rep")
S.dump = unsupported_string("dump")

-- method syntax on strings uses the restricted library
getmetatable("").__index = S

-- gopher-lua's table.concat: numbers written like tostring (not with
-- %.14g), a separator that must be a string, positions that must be
-- numbers, a range clamped to `#t` (a start outside the table with no end
-- gives ""), and errors at the calling script line.
local tostring_h = H.tostring
local function trunc(n)
  if n >= 0 then
    return math.floor(n)
  end
  return math.ceil(n)
end
local function concat(...)
  local nargs = select("#", ...)
  local t, sep, i, j = ...
  if type(t) ~= "table" then
    badarg(1, "concat", "table", t)
  end
  if sep == nil then
    sep = ""
  elseif type(sep) ~= "string" then
    badarg(2, "concat", "string", sep)
  end
  local len = #t
  if i == nil then
    i = 1
  elseif type(i) ~= "number" then
    badarg(3, "concat", "number", i)
  else
    i = trunc(i)
  end
  if j == nil then
    j = len
  elseif type(j) ~= "number" then
    badarg(4, "concat", "number", j)
  else
    j = trunc(j)
  end
  if nargs == 3 and (i > len or i < 1) then
    return ""
  end
  if i > len then
    i = len
  end
  if i < 1 then
    i = 1
  end
  if j > len then
    j = len
  end
  if i > j then
    return ""
  end
  local parts = {}
  for k = i, j do
    local v = t[k]
    local tv = type(v)
    if tv == "number" then
      v = tostring_h(v)
    elseif tv ~= "string" then
      raise("invalid value (" .. tv .. ") at index " .. k .. " in table for concat")
    end
    parts[k - i + 1] = v
  end
  return tconcat(parts, sep)
end

local T = {
  concat = concat, getn = table.getn, insert = table.insert, maxn = table.maxn,
  remove = table.remove, sort = table.sort,
}

local M = {}
for _, k in ipairs({ "abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg", "exp",
  "floor", "fmod", "frexp", "ldexp", "log", "log10", "max", "min", "modf", "pow", "rad", "random",
  "randomseed", "sin", "sinh", "sqrt", "tan", "tanh", "pi" }) do
  M[k] = math[k]
end
-- gopher-lua's math.mod is the `%` operator (floored), not fmod
-- gopher-lua: no arguments is "wrong number of arguments"
local mmodf = math.modf
local function needargs(f)
  return function(...)
    if select("#", ...) == 0 then
      raise("wrong number of arguments")
    end
    return f(...)
  end
end
M.max = needargs(math.max)
M.min = needargs(math.min)
-- Go's math.Modf: the fraction of an infinity is NaN
M.modf = function(x)
  if x == 1 / 0 or x == -1 / 0 then
    return x, 0 / 0
  end
  return mmodf(x)
end
M.mod = function(a, b)
  local _ = math.fmod(a, b)
  return a % b
end
M.log = function(x)
  return math.log(x)
end
M.huge = 1.7976931348623157e308

local O = { time = H.ostime, date = H.osdate }

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function()
      refuse(name .. " is read-only", 2)
    end,
    __metatable = false,
  })
end

local KUBE = readonly(H.kube, "module kube")
-- The environment of the run in progress (see `run`): gopher-lua's
-- `package.loaded` holds the opened libraries, so `require("os")` is the
-- run's `os`.
local current
local LIBS = { string = true, table = true, math = true, os = true, _G = true }
local function require_(name)
  if name == "kube" then
    return KUBE
  end
  if LIBS[name] and current ~= nil then
    return rawget(current, name)
  end
  refuse("module " .. tostring_raw(name) .. " not found:\n\tno field package.preload['"
    .. tostring_raw(name) .. "'], ", 2)
end

local P = readonly({
  preload = readonly({ kube = function() return KUBE end }, "package.preload"),
  loaded = readonly({ kube = KUBE }, "package.loaded"),
  loaders = readonly({ function(name)
    if name == "kube" then
      return function() return KUBE end
    end
    return "\n\tno field package.preload['" .. tostring_raw(name) .. "']"
  end }, "package.loaders"),
  loadlib = function() refuse("loadlib is not supported", 2) end,
}, "package")

-- gopher-lua's assert: the message must be a string; the default text is
-- "assertion failed!" (also with no argument at all); the error carries the
-- calling line.
local function assert_(...)
  local v, message = ...
  if not v then
    if message == nil then
      raise("assertion failed!")
    end
    if type(message) ~= "string" then
      raise("bad argument #2 to assert (string expected, got " .. type(message) .. ")")
    end
    raise(message)
  end
  return ...
end

local proto = {
  assert = assert_, error = error_, ipairs = ipairs, next = next, pairs = pairs,
  pcall = pcall_, xpcall = xpcall_, print = H.print, select = select_,
  tonumber = H.tonumber, tostring = H.tostring, type = type, unpack = unpack,
  require = require_, package = P,
  _VERSION = "Lua 5.1", _GOPHER_LUA_VERSION = "GopherLua 1.1.1",
  _printregs = function() end,
}
for _, name in ipairs({ "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
  "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy" }) do
  proto[name] = disabled(name)
end

-- `pairs` over a run's library overlay (the engine's `__pairs`) visits the
-- library's entries (with the run's own value where it wrote one), then the
-- keys the run added, as over gopher-lua's library tables.
local rawnext = pairs({}) -- the engine's plain `next` (the global one steps overlays)
local function overlay(lib)
  local function step(t, k)
    local v
    if k == nil or rawget(lib, k) ~= nil then
      k, v = rawnext(lib, k)
      if k ~= nil then
        local own = rawget(t, k)
        if own ~= nil then
          v = own
        end
        return k, v
      end
    end
    repeat
      k, v = rawnext(t, k)
    until k == nil or rawget(lib, k) == nil
    return k, v
  end
  return {
    __index = lib,
    __metatable = false,
    __pairs = function(t)
      return step, t, nil
    end,
  }
end
-- gopher-lua's string library holds itself as `__index` (it is the strings'
-- metatable). Here the strings' metatable is shared by every run of the
-- state, so `("x").__index` is a view of the run's own `string` overlay:
-- what a script writes through it stays in its run, like any write into a
-- library (rawset, which could write into the view itself, is disabled).
S.__index = setmetatable({}, {
  __index = function(_, k)
    local lib = current ~= nil and current.string or S
    return lib[k]
  end,
  __newindex = function(_, k, v)
    if current ~= nil then
      current.string[k] = v
    end
  end,
  __metatable = false,
})
local smeta = overlay(S)
local tmeta = overlay(T)
local mmeta = overlay(M)
local ometa = overlay(O)

-- A fresh global environment: writes stay in it (also writes into the
-- library tables, which are per-run overlays of the shared libraries).
-- The base functions are copied in, not inherited: as in gopher-lua, where
-- the globals are one table, `error = nil` leaves `error` nil for the rest
-- of the run and `pairs(_G)` lists them.
--
-- The environment is built once per state (the libraries, then `proto` in
-- its own order, then `_G`) and every run gets a copy of it: the previous
-- run's table reset in place (`H.reset`: nothing of that run is left in
-- it, and nothing of that run can reach it) or, when that run grew it, a
-- new copy (`H.clone`); either way the same contents in the same iteration
-- order. The template holds the library overlays and `_G` (the table runs
-- are reset into), so a run allocates nothing for its environment: an
-- overlay a run wrote into is replaced by a new empty one before the next
-- run.
local newenv
do
  -- The template holds the library overlays of the last run, kept while no
  -- run writes into them (an empty overlay is as fresh as a new one).
  local template = {
    string = setmetatable({}, smeta), table = setmetatable({}, tmeta),
    math = setmetatable({}, mmeta), os = setmetatable({}, ometa),
  }
  for k, v in next, proto do
    template[k] = v
  end
  template._G = false
  local clone, reset = H.clone, H.reset
  local last = nil
  local function renew(name, meta)
    if rawnext(template[name]) ~= nil then
      template[name] = setmetatable({}, meta)
    end
  end
  local empty = H.empty
  newenv = function()
    if not empty(template.string, template.table, template.math, template.os) then
      renew("string", smeta)
      renew("table", tmeta)
      renew("math", mmeta)
      renew("os", ometa)
    end
    local env = last
    if env == nil or not reset(env, template) then
      env = clone(template)
      last = env
      -- the template's `_G` is the table every later run is reset into
      template._G = env
      env._G = env
    end
    return env
  end
end

-- The values a script's top level returned (nil: none). Karmada runs the
-- top level with gopher-lua's DoString, which leaves them on the stack, and
-- reads the entry function's results from the bottom of the stack: they come
-- first (`return 5` at the top level is InterpretHealth's result).
local function returned(...)
  local n = select("#", ...)
  if n == 0 then
    return nil
  end
  return { n = n, ... }
end

-- `top`'s values, then the entry function's results.
local function after(top, ...)
  local all = { ... }
  local n = select("#", ...)
  for i = n, 1, -1 do
    all[i + top.n] = all[i]
  end
  for i = 1, top.n do
    all[i] = top[i]
  end
  return unpack(all, 1, top.n + n)
end

-- One run: fresh environment, top-level code, entry point lookup, call.
local function run(chunk, name, ...)
  local env = newenv()
  current = env
  setfenv(chunk, env)
  local top = returned(chunk())
  -- the environment has no metatable: a plain read is a raw one
  local f = env[name]
  if f == nil then
    error("not found function " .. name, 0)
  end
  if type(f) ~= "function" then
    error(name .. " is not a function: " .. type(f), 0)
  end
  if top == nil then
    return f(...)
  end
  return after(top, f(...))
end

-- Runs the top-level code only and reports the type of global `name`.
local function probe(chunk, name)
  local env = newenv()
  current = env
  setfenv(chunk, env)
  chunk()
  return type(rawget(env, name))
end

-- One run of a script whose top level is the whole check (Argo CD's
-- health.lua): fresh environment with the global `name` set to `value`, the
-- top-level code's results returned.
local function run_top(chunk, name, value)
  local env = newenv()
  env[name] = value
  setfenv(chunk, env)
  return chunk()
end

return run, probe, run_top
