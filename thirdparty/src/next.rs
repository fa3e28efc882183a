//! The bundled customizations as the `karmada-next` profile has them:
//! FlinkDeployment gains a `componentRevision` rule (Karmada's pull request
//! #7830), which writes the component assignment the scheduler made into
//! `spec.jobManager.replicas` and `spec.taskManager.replicas`, and reads
//! memory sizes with `kube.parseFlinkMemory`, in bytes (pull request #7537).

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

/// The released rules' reading of a Flink memory size (a Kubernetes
/// quantity text), from its definition to its end.
const RELEASED_MEMORY_START: &str = "local function flinkMemory(value)\n";
const RELEASED_MEMORY_END: &str = "return number .. memoryUnits[unit]\nend\n";

/// The profile's: Flink's own reading, in bytes (PR #7537).
const NEXT_MEMORY: &str = "local function flinkMemory(value)
  -- Flink's own units, in bytes (kube.parseFlinkMemory; Karmada PR #7537)
  return require(\"kube\").parseFlinkMemory(value)
end
";

/// The released rules compare two quantity texts; the profile's sizes are numbers.
const RELEASED_COMPARISON: &str =
    "kube.getResourceQuantity(jmMemory) > kube.getResourceQuantity(tmMemory)";
const NEXT_COMPARISON: &str = "jmMemory > tmMemory";

/// `script` with its memory reading as the profile has it (unchanged when it
/// reads no memory).
fn with_flink_memory(script: &str) -> String {
    let mut out = script.replace(RELEASED_COMPARISON, NEXT_COMPARISON);
    if let Some(start) = out.find(RELEASED_MEMORY_START) {
        if let Some(len) = out[start..].find(RELEASED_MEMORY_END) {
            out.replace_range(start..start + len + RELEASED_MEMORY_END.len(), NEXT_MEMORY);
        }
    }
    out
}

/// `bundled` with the profile's rules added.
pub(crate) fn customizations(
    mut bundled: Vec<ResourceInterpreterCustomization>,
) -> Vec<ResourceInterpreterCustomization> {
    for c in &mut bundled {
        let target = &c.spec.target;
        if target.api_version == "flink.apache.org/v1beta1" && target.kind == "FlinkDeployment" {
            let rules = &mut c.spec.customizations;
            rules.component_revision = Some(LuaScript {
                lua_script: FLINK_COMPONENT_REVISION.to_owned(),
            });
            for rule in [&mut rules.replica_resource, &mut rules.component_resource]
                .into_iter()
                .flatten()
            {
                rule.lua_script = with_flink_memory(&rule.lua_script);
            }
        }
    }
    bundled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flink_reads_memory_with_parse_flink_memory_under_the_profile() {
        let next = customizations(crate::parsed().to_vec());
        let flink = next
            .iter()
            .find(|c| c.spec.target.kind == "FlinkDeployment")
            .expect("bundled");
        let rules = &flink.spec.customizations;
        for rule in [&rules.replica_resource, &rules.component_resource] {
            let script = &rule.as_ref().expect("present").lua_script;
            assert!(script.contains("parseFlinkMemory(value)"), "{script}");
            assert!(!script.contains("memoryUnits[unit]"), "{script}");
            assert!(!script.contains(RELEASED_COMPARISON), "{script}");
        }
        assert!(rules.component_revision.is_some());
    }
}
