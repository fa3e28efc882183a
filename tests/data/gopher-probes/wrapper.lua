-- The InterpretStatus script every probe runs in (tools/gopher_probes.py and
-- tests/gopher_probes.rs both use this file): the marker line below is
-- replaced by the probe's script, the body of a function of the observed
-- object `obj`.
-- s(...): the values, strings quoted, tables as `table` (no address),
-- joined with '|'.
local function s(...)
  local n = select('#', ...)
  local o = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == 'string' then
      o[i] = '"' .. v .. '"'
    elseif type(v) == 'table' then
      o[i] = 'table'
    else
      o[i] = tostring(v)
    end
  end
  return table.concat(o, '|')
end
-- keys(t): `k=v` in `pairs` order (tables as `table`), joined with ','.
local function keys(t)
  local o = {}
  for k, v in pairs(t) do
    o[#o + 1] = tostring(k) .. '=' .. (type(v) == 'table' and 'table' or tostring(v))
  end
  return table.concat(o, ',')
end
function ReflectStatus(observedObj)
  return {v = (function(obj)
@BODY@
  end)(observedObj)}
end
