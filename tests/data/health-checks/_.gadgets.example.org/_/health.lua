-- Our own wildcard check: every kind of every group ending in .gadgets.example.org.
if obj.status ~= nil and obj.status.ok then
  return {status = "Healthy", message = obj.kind .. " ok"}
end
return {status = "Missing", message = obj.kind .. " not reported"}
