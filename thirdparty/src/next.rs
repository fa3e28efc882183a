//! The bundled customizations as the `karmada-next` profile has them:
//! FlinkDeployment gains a `componentRevision` rule (Karmada's pull request
//! #7830), which writes the component assignment the scheduler made into
//! `spec.jobManager.replicas` and `spec.taskManager.replicas`.

use karmada_interpreter_core::api::{LuaScript, ResourceInterpreterCustomization};

/// The FlinkDeployment `componentRevision` rule: both components must be
/// assigned, each once and by its name; anything else is refused.
const FLINK_COMPONENT_REVISION: &str = r#"
-- Which spec member holds each Flink component's replicas.
local MEMBER = { jobmanager = "jobManager", taskmanager = "taskManager" }

function ReviseComponents(desiredObj, components)
  if components == nil or #components ~= 2 then
    error("a FlinkDeployment takes an assignment of exactly its two components, jobmanager and taskmanager")
  end
  local assigned = {}
  for i = 1, #components do
    local name = components[i].name
    local member = MEMBER[name]
    if member == nil then
      error("a FlinkDeployment has no component " .. tostring(name))
    end
    if assigned[member] ~= nil then
      error("FlinkDeployment component " .. name .. " is assigned twice")
    end
    assigned[member] = components[i].replicas
  end
  if assigned.jobManager == nil or assigned.taskManager == nil then
    error("a FlinkDeployment component has no assignment")
  end
  desiredObj.spec.jobManager.replicas = assigned.jobManager
  desiredObj.spec.taskManager.replicas = assigned.taskManager
  return desiredObj
end
"#;

/// `bundled` with the profile's rules added.
pub(crate) fn customizations(
    mut bundled: Vec<ResourceInterpreterCustomization>,
) -> Vec<ResourceInterpreterCustomization> {
    for c in &mut bundled {
        let target = &c.spec.target;
        if target.api_version == "flink.apache.org/v1beta1" && target.kind == "FlinkDeployment" {
            c.spec.customizations.component_revision = Some(LuaScript {
                lua_script: FLINK_COMPONENT_REVISION.to_owned(),
            });
        }
    }
    bundled
}
