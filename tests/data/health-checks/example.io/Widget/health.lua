-- Our own Argo CD-format check for the test kind Widget (example.io).
local hs = {}
if obj.status == nil or obj.status.phase == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the widget controller"
  return hs
end
if obj.status.phase == "Ready" then
  hs.status = "Healthy"
  hs.message = string.format("%d of %d parts ready", obj.status.ready, obj.spec.parts)
elseif obj.status.phase == "Paused" then
  hs.status = "Suspended"
  hs.message = "Widget is paused"
elseif obj.status.phase == "Broken" then
  hs.status = "Degraded"
  hs.message = obj.status.reason
elseif obj.status.phase == "Spin" then
  while true do end
elseif obj.status.phase == "Escape" then
  return io.open("/etc/passwd")
elseif obj.status.phase == "Odd" then
  hs.status = "Fine"
  hs.message = "not a health code"
elseif obj.status.phase == "Nothing" then
  return {}
else
  hs.status = "Unknown"
  hs.message = "phase " .. obj.status.phase
end
return hs
