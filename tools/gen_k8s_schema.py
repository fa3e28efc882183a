#!/usr/bin/env python3
"""Generates crates/core/src/k8s/normalize/schema.rs: the Kubernetes 1.36 type graph of the
kinds whose native handlers return normalized (typed re-encoded) objects.

Field names and types come from k8s-openapi's generated v1_36 sources; what Go's
encoder always emits (fields whose Go type is a value, not a pointer, so an
empty one is still written) comes from the ALWAYS table below;
which optional scalars are Go value fields (zero omitted) rather than pointers
(zero kept) comes from VALUE_SCALARS below (unlisted optional scalars are kept
when present, which never loses a user's explicit value).

Usage: tools/gen_k8s_schema.py <path to k8s-openapi-0.29.x/src/v1_36> > crates/core/src/k8s/normalize/schema.rs

The test `k8s::normalize::schema_check` runs this generator on the k8s-openapi
sources in the cargo registry and fails when the committed file differs.
"""
import os, re, sys

ROOT = sys.argv[1]
ROOTS = [
    "api::apps::v1::Deployment", "api::apps::v1::ReplicaSet", "api::apps::v1::StatefulSet",
    "api::apps::v1::DaemonSet", "api::batch::v1::Job", "api::batch::v1::CronJob",
    "api::core::v1::Pod", "api::core::v1::Service", "api::core::v1::PersistentVolume",
    "api::core::v1::PersistentVolumeClaim", "api::networking::v1::Ingress",
    "api::policy::v1::PodDisruptionBudget", "api::autoscaling::v2::HorizontalPodAutoscaler",
]
# Always-emitted fields per type. value: "{}" value struct, "null" nil list/map/pointer, "" / 0 / false / "0"
# zero scalar, "nullt" zero time (null when unset).
ALWAYS = {
 "Deployment": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "OwnerReference": {"apiVersion": "", "kind": "", "name": "", "uid": ""},
 "DeploymentSpec": {"selector": "null", "template": "{}", "strategy": "{}"},
 "LabelSelectorRequirement": {"key": "", "operator": ""},
 "PodTemplateSpec": {"metadata": "{}", "spec": "{}"},
 "PodSpec": {"containers": "null"},
 "Volume": {"name": ""},
 "HostPathVolumeSource": {"path": ""},
 "GCEPersistentDiskVolumeSource": {"pdName": ""},
 "AWSElasticBlockStoreVolumeSource": {"volumeID": ""},
 "GitRepoVolumeSource": {"repository": ""},
 "KeyToPath": {"key": "", "path": ""},
 "NFSVolumeSource": {"server": "", "path": ""},
 "ISCSIVolumeSource": {"targetPortal": "", "iqn": "", "lun": 0},
 "GlusterfsVolumeSource": {"endpoints": "", "path": ""},
 "PersistentVolumeClaimVolumeSource": {"claimName": ""},
 "RBDVolumeSource": {"monitors": "null", "image": ""},
 "FlexVolumeSource": {"driver": ""},
 "CinderVolumeSource": {"volumeID": ""},
 "CephFSVolumeSource": {"monitors": "null"},
 "DownwardAPIVolumeFile": {"path": ""},
 "ObjectFieldSelector": {"fieldPath": ""},
 "ResourceFieldSelector": {"resource": "", "divisor": "0"},
 "AzureFileVolumeSource": {"secretName": "", "shareName": ""},
 "VsphereVirtualDiskVolumeSource": {"volumePath": ""},
 "QuobyteVolumeSource": {"registry": "", "volume": ""},
 "AzureDiskVolumeSource": {"diskName": "", "diskURI": ""},
 "PhotonPersistentDiskVolumeSource": {"pdID": ""},
 "ProjectedVolumeSource": {"sources": "null"},
 "ServiceAccountTokenProjection": {"path": ""},
 "ClusterTrustBundleProjection": {"path": ""},
 "PortworxVolumeSource": {"volumeID": ""},
 "ScaleIOVolumeSource": {"gateway": "", "system": "", "secretRef": "null"},
 "CSIVolumeSource": {"driver": ""},
 "PersistentVolumeClaimTemplate": {"metadata": "{}", "spec": "{}"},
 "PersistentVolumeClaimSpec": {"resources": "{}"},
 "TypedLocalObjectReference": {"apiGroup": "null", "kind": "", "name": ""},
 "TypedObjectReference": {"apiGroup": "null", "kind": "", "name": ""},
 "Container": {"name": "", "resources": "{}"},
 "ContainerPort": {"containerPort": 0},
 "EnvVar": {"name": ""},
 "ConfigMapKeySelector": {"key": ""},
 "SecretKeySelector": {"key": ""},
 "FileKeySelector": {"volumeName": "", "path": "", "key": ""},
 "ResourceClaim": {"name": ""},
 "ContainerResizePolicy": {"resourceName": "", "restartPolicy": ""},
 "VolumeMount": {"name": "", "mountPath": ""},
 "VolumeDevice": {"name": "", "devicePath": ""},
 "HTTPGetAction": {"port": 0},
 "HTTPHeader": {"name": "", "value": ""},
 "TCPSocketAction": {"port": 0},
 "GRPCAction": {"port": 0, "service": "null"},
 "SleepAction": {"seconds": 0},
 "SeccompProfile": {"type": ""},
 "AppArmorProfile": {"type": ""},
 "EphemeralContainer": {"name": "", "resources": "{}"},
 "Sysctl": {"name": "", "value": ""},
 "NodeSelector": {"nodeSelectorTerms": "null"},
 "NodeSelectorRequirement": {"key": "", "operator": ""},
 "PreferredSchedulingTerm": {"weight": 0, "preference": "{}"},
 "PodAffinityTerm": {"topologyKey": ""},
 "WeightedPodAffinityTerm": {"weight": 0, "podAffinityTerm": "{}"},
 "HostAlias": {"ip": ""},
 "PodReadinessGate": {"conditionType": ""},
 "TopologySpreadConstraint": {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": ""},
 "PodOS": {"name": ""},
 "PodSchedulingGate": {"name": ""},
 "PodResourceClaim": {"name": ""},
 "DeploymentCondition": {"type": "", "status": "", "lastUpdateTime": "nullt", "lastTransitionTime": "nullt"},
 "ReplicaSet": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "ReplicaSetSpec": {"selector": "null", "template": "{}"},
 "ReplicaSetStatus": {"replicas": 0},
 "ReplicaSetCondition": {"type": "", "status": "", "lastTransitionTime": "nullt"},
 "StatefulSet": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "StatefulSetSpec": {"selector": "null", "template": "{}", "serviceName": "", "updateStrategy": "{}"},
 "PersistentVolumeClaim": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "PersistentVolumeClaimCondition": {"type": "", "status": "", "lastProbeTime": "nullt", "lastTransitionTime": "nullt"},
 "ModifyVolumeStatus": {"status": ""},
 "StatefulSetOrdinals": {"start": 0},
 "StatefulSetStatus": {"replicas": 0, "availableReplicas": 0},
 "StatefulSetCondition": {"type": "", "status": "", "lastTransitionTime": "nullt"},
 "DaemonSet": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "DaemonSetSpec": {"selector": "null", "template": "{}", "updateStrategy": "{}"},
 "DaemonSetStatus": {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0},
 "DaemonSetCondition": {"type": "", "status": "", "lastTransitionTime": "nullt"},
 "Job": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "JobSpec": {"template": "{}"},
 "PodFailurePolicy": {"rules": "null"},
 "PodFailurePolicyRule": {"action": ""},
 "PodFailurePolicyOnExitCodesRequirement": {"operator": "", "values": "null"},
 "PodFailurePolicyOnPodConditionsPattern": {"type": "", "status": ""},
 "SuccessPolicy": {"rules": "null"},
 "JobCondition": {"type": "", "status": "", "lastProbeTime": "nullt", "lastTransitionTime": "nullt"},
 "CronJob": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "CronJobSpec": {"schedule": "", "jobTemplate": "{}"},
 "JobTemplateSpec": {"metadata": "{}", "spec": "{}"},
 "Pod": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "PodCondition": {"type": "", "status": "", "lastProbeTime": "nullt", "lastTransitionTime": "nullt"},
 "HostIP": {"ip": ""},
 "PodIP": {"ip": ""},
 "ContainerStatus": {"name": "", "state": "{}", "lastState": "{}", "ready": False, "restartCount": 0, "image": "", "imageID": ""},
 "ContainerStateRunning": {"startedAt": "nullt"},
 "ContainerStateTerminated": {"exitCode": 0, "startedAt": "nullt", "finishedAt": "nullt"},
 "VolumeMountStatus": {"name": "", "mountPath": ""},
 "LinuxContainerUser": {"uid": 0, "gid": 0},
 "ResourceStatus": {"name": ""},
 "ResourceHealth": {"resourceID": ""},
 "PodResourceClaimStatus": {"name": ""},
 "PodExtendedResourceClaimStatus": {"requestMappings": "null", "resourceClaimName": ""},
 "ContainerExtendedResourceRequest": {"containerName": "", "resourceName": "", "requestName": ""},
 "NodeAllocatableResourceClaimStatus": {"resourceClaimName": "", "resources": "null"},
 "Service": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "ServicePort": {"port": 0, "targetPort": 0},
 "ServiceStatus": {"loadBalancer": "{}"},
 "PortStatus": {"port": 0, "protocol": ""},
 "Condition": {"type": "", "status": "", "lastTransitionTime": "nullt", "reason": "", "message": ""},
 "Ingress": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "IngressServiceBackend": {"name": "", "port": "{}"},
 "HTTPIngressRuleValue": {"paths": "null"},
 "HTTPIngressPath": {"pathType": "null", "backend": "{}"},
 "IngressStatus": {"loadBalancer": "{}"},
 "IngressPortStatus": {"port": 0, "protocol": ""},
 "PersistentVolume": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "GlusterfsPersistentVolumeSource": {"endpoints": "", "path": ""},
 "RBDPersistentVolumeSource": {"monitors": "null", "image": ""},
 "ISCSIPersistentVolumeSource": {"targetPortal": "", "iqn": "", "lun": 0},
 "CinderPersistentVolumeSource": {"volumeID": ""},
 "CephFSPersistentVolumeSource": {"monitors": "null"},
 "FlexPersistentVolumeSource": {"driver": ""},
 "AzureFilePersistentVolumeSource": {"secretName": "", "shareName": "", "secretNamespace": "null"},
 "ScaleIOPersistentVolumeSource": {"gateway": "", "system": "", "secretRef": "null"},
 "LocalVolumeSource": {"path": ""},
 "CSIPersistentVolumeSource": {"driver": "", "volumeHandle": ""},
 "PodDisruptionBudget": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "PodDisruptionBudgetStatus": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0},
 "HorizontalPodAutoscaler": {"metadata": "{}", "spec": "{}", "status": "{}"},
 "HorizontalPodAutoscalerSpec": {"scaleTargetRef": "{}", "maxReplicas": 0},
 "CrossVersionObjectReference": {"kind": "", "name": ""},
 "MetricSpec": {"type": ""},
 "ObjectMetricSource": {"describedObject": "{}", "target": "{}", "metric": "{}"},
 "MetricTarget": {"type": ""},
 "MetricIdentifier": {"name": ""},
 "PodsMetricSource": {"metric": "{}", "target": "{}"},
 "ResourceMetricSource": {"name": "", "target": "{}"},
 "ContainerResourceMetricSource": {"name": "", "target": "{}", "container": ""},
 "ExternalMetricSource": {"metric": "{}", "target": "{}"},
 "HPAScalingPolicy": {"type": "", "value": 0, "periodSeconds": 0},
 "HorizontalPodAutoscalerStatus": {"desiredReplicas": 0, "currentMetrics": "null"},
 "MetricStatus": {"type": ""},
 "ObjectMetricStatus": {"metric": "{}", "current": "{}", "describedObject": "{}"},
 "PodsMetricStatus": {"metric": "{}", "current": "{}"},
 "ResourceMetricStatus": {"name": "", "current": "{}"},
 "ContainerResourceMetricStatus": {"name": "", "current": "{}", "container": ""},
 "ExternalMetricStatus": {"metric": "{}", "current": "{}"},
 "HorizontalPodAutoscalerCondition": {"type": "", "status": "", "lastTransitionTime": "nullt"},
}
# Optional scalars that are Go value fields with omitempty (zero value omitted):
# every non-pointer scalar field tagged `omitempty` of the k8s.io/api v0.36 Go
# types (core/v1, apps/v1, batch/v1, networking/v1, policy/v1, autoscaling/v2,
# meta/v1) of the types below. Unlisted optional scalars are treated as
# pointers: kept whenever present.
VALUE_SCALARS = {
 "ObjectMeta": "name generateName namespace selfLink uid resourceVersion generation creationTimestamp",
 "DeploymentStatus": "observedGeneration replicas updatedReplicas readyReplicas availableReplicas unavailableReplicas",
 "DeploymentSpec": "minReadySeconds paused strategy",
 "DeploymentCondition": "reason message lastUpdateTime lastTransitionTime",
 "ReplicaSetStatus": "fullyLabeledReplicas readyReplicas availableReplicas observedGeneration",
 "ReplicaSetSpec": "minReadySeconds template",
 "ReplicaSetCondition": "reason message lastTransitionTime",
 "StatefulSetStatus": "observedGeneration readyReplicas currentReplicas updatedReplicas currentRevision updateRevision",
 "StatefulSetSpec": "podManagementPolicy updateStrategy minReadySeconds",
 "StatefulSetCondition": "reason message lastTransitionTime",
 "DaemonSetStatus": "observedGeneration updatedNumberScheduled numberAvailable numberUnavailable",
 "DaemonSetCondition": "reason message lastTransitionTime",
 "JobStatus": "active succeeded failed completedIndexes",
 "JobCondition": "reason message lastProbeTime lastTransitionTime",
 "CronJobSpec": "concurrencyPolicy",
 "PodStatus": "phase message reason nominatedNodeName hostIP podIP qosClass resize observedGeneration allocatedResources",
 "PodCondition": "reason message observedGeneration lastProbeTime lastTransitionTime",
 "ContainerStatus": "containerID state lastState allocatedResources",
 "ContainerStateWaiting": "reason message",
 "ContainerStateTerminated": "signal reason message containerID startedAt finishedAt",
 "PersistentVolumeStatus": "phase message reason",
 "PersistentVolumeClaimStatus": "phase capacity allocatedResources",
 "PersistentVolumeClaimCondition": "reason message lastProbeTime lastTransitionTime",
 "PodDisruptionBudgetStatus": "observedGeneration",
 "HorizontalPodAutoscalerStatus": "currentReplicas",
 "HorizontalPodAutoscalerCondition": "reason message lastTransitionTime",
 "LoadBalancerIngress": "ip hostname",
 "IngressLoadBalancerIngress": "ip hostname",
 "Condition": "observedGeneration",
 "Container": "image workingDir terminationMessagePath terminationMessagePolicy imagePullPolicy stdin stdinOnce tty resources",
 "EphemeralContainer": "image workingDir terminationMessagePath terminationMessagePolicy imagePullPolicy stdin stdinOnce tty targetContainerName",
 "ContainerPort": "name hostPort protocol hostIP",
 "VolumeMount": "readOnly subPath subPathExpr",
 "EnvVar": "value",
 "PodSpec": "restartPolicy dnsPolicy serviceAccountName serviceAccount nodeName hostNetwork hostPID hostIPC hostname subdomain schedulerName priorityClassName preemptionPolicy overhead",
 "ServiceSpec": "type clusterIP externalName sessionAffinity loadBalancerIP externalTrafficPolicy publishNotReadyAddresses healthCheckNodePort",
 "ServicePort": "name protocol nodePort targetPort",
 "AWSElasticBlockStoreVolumeSource": "fsType partition readOnly",
 "AzureFilePersistentVolumeSource": "readOnly",
 "AzureFileVolumeSource": "readOnly",
 "CSIPersistentVolumeSource": "readOnly fsType",
 "CephFSPersistentVolumeSource": "path user secretFile readOnly",
 "CephFSVolumeSource": "path user secretFile readOnly",
 "CinderPersistentVolumeSource": "fsType readOnly",
 "CinderVolumeSource": "fsType readOnly",
 "ContainerRestartRule": "action",
 "ContainerRestartRuleOnExitCodes": "operator",
 "ContainerStateRunning": "startedAt",
 "CronJob": "spec status",
 "CrossVersionObjectReference": "apiVersion",
 "DaemonSet": "spec status",
 "DaemonSetSpec": "updateStrategy minReadySeconds",
 "DaemonSetUpdateStrategy": "type",
 "Deployment": "spec status",
 "DeploymentStrategy": "type",
 "EmptyDirVolumeSource": "medium",
 "EnvFromSource": "prefix",
 "FCVolumeSource": "fsType readOnly",
 "FlexPersistentVolumeSource": "fsType readOnly",
 "FlexVolumeSource": "fsType readOnly",
 "FlockerVolumeSource": "datasetName datasetUUID",
 "GCEPersistentDiskVolumeSource": "fsType partition readOnly",
 "GitRepoVolumeSource": "revision directory",
 "GlusterfsPersistentVolumeSource": "readOnly",
 "GlusterfsVolumeSource": "readOnly",
 "HTTPGetAction": "path host scheme",
 "HTTPIngressPath": "path",
 "HorizontalPodAutoscaler": "spec status",
 "ISCSIPersistentVolumeSource": "iscsiInterface fsType readOnly chapAuthDiscovery chapAuthSession",
 "ISCSIVolumeSource": "iscsiInterface fsType readOnly chapAuthDiscovery chapAuthSession",
 "ImageVolumeSource": "reference pullPolicy",
 "ImageVolumeStatus": "imageRef",
 "Ingress": "spec status",
 "IngressRule": "host",
 "IngressServiceBackend": "port",
 "IngressStatus": "loadBalancer",
 "IngressTLS": "secretName",
 "Job": "spec status",
 "JobTemplateSpec": "spec",
 "LocalObjectReference": "name",
 "ManagedFieldsEntry": "manager operation apiVersion fieldsType subresource",
 "ModifyVolumeStatus": "targetVolumeAttributesClassName",
 "NFSVolumeSource": "readOnly",
 "ObjectFieldSelector": "apiVersion",
 "ObjectReference": "kind namespace name uid apiVersion resourceVersion fieldPath",
 "PersistentVolume": "spec status",
 "PersistentVolumeClaim": "spec status",
 "PersistentVolumeClaimSpec": "resources volumeName",
 "PersistentVolumeClaimVolumeSource": "readOnly",
 "PersistentVolumeSpec": "capacity persistentVolumeReclaimPolicy storageClassName",
 "PhotonPersistentDiskVolumeSource": "fsType",
 "Pod": "spec status",
 "PodCertificateProjection": "signerName keyType credentialBundlePath keyPath certificateChainPath",
 "PodDNSConfigOption": "name",
 "PodDisruptionBudget": "spec status",
 "PodTemplateSpec": "spec",
 "PortworxVolumeSource": "fsType readOnly",
 "Probe": "initialDelaySeconds timeoutSeconds periodSeconds successThreshold failureThreshold",
 "QuobyteVolumeSource": "readOnly user group tenant",
 "RBDPersistentVolumeSource": "fsType pool user keyring readOnly",
 "RBDVolumeSource": "fsType pool user keyring readOnly",
 "ReplicaSet": "spec status",
 "ResourceClaim": "request",
 "ResourceFieldSelector": "containerName divisor",
 "ResourceHealth": "health",
 "ResourceRequirements": "limits requests",
 "SELinuxOptions": "user role type level",
 "ScaleIOPersistentVolumeSource": "sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly",
 "ScaleIOVolumeSource": "sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly",
 "SecretReference": "name namespace",
 "SecretVolumeSource": "secretName",
 "Service": "spec status",
 "ServiceAccountTokenProjection": "audience",
 "ServiceBackendPort": "name number",
 "ServiceStatus": "loadBalancer",
 "StatefulSet": "spec status",
 "StatefulSetPersistentVolumeClaimRetentionPolicy": "whenDeleted whenScaled",
 "StatefulSetUpdateStrategy": "type",
 "StorageOSPersistentVolumeSource": "volumeName volumeNamespace fsType readOnly",
 "StorageOSVolumeSource": "volumeName volumeNamespace fsType readOnly",
 "TCPSocketAction": "host",
 "Toleration": "key operator value effect",
 "VolumeMountStatus": "readOnly",
 "VolumeResourceRequirements": "limits requests",
 "VsphereVirtualDiskVolumeSource": "fsType storagePolicyName storagePolicyID",
}

TYPEMAP = {
    "std::string::String": "Str", "i32": "I32", "i64": "I64", "f64": "F64", "bool": "Bool",
    "crate::apimachinery::pkg::api::resource::Quantity": "Quantity",
    "crate::apimachinery::pkg::apis::meta::v1::Time": "Time",
    "crate::apimachinery::pkg::apis::meta::v1::MicroTime": "MicroTime",
    "crate::apimachinery::pkg::util::intstr::IntOrString": "IntOrString",
    "crate::ByteString": "Bytes",
    "crate::apimachinery::pkg::apis::meta::v1::FieldsV1": "Any",
    "crate::apimachinery::pkg::runtime::RawExtension": "Any",
    "crate::serde_json::Value": "Any",
}

def read_struct(path):
    """crate path like api::core::v1::PodSpec -> (name, [(json, rust_type)])"""
    parts = path.split("::")
    name = parts[-1]
    fname = re.sub(r"(?<!^)(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    d = os.path.join(ROOT, *parts[:-1])
    cands = [f for f in os.listdir(d) if f.endswith(".rs") and f != "mod.rs"]
    src = None
    for f in cands:
        s = open(os.path.join(d, f)).read()
        if re.search(r"pub struct %s \{" % re.escape(name), s):
            src = s
            break
    if src is None:
        raise SystemExit("struct not found: " + path)
    body = re.search(r"pub struct %s \{(.*?)\n\}" % re.escape(name), src, re.S).group(1)
    fields = re.findall(r"(?m)^    pub (r#)?([a-z0-9_]+): (.*),$", body)
    keys = dict((k, j) for j, k in re.findall(r'"([^"]+)" => Field::Key_([a-z0-9_]+),', src))
    out = []
    for _, rname, ty in fields:
        opt = ty.startswith("Option<")
        if opt:
            ty = ty[len("Option<"):-1]
        out.append((keys[rname], ty, opt))
    return name, out

seen = {}   # name -> (path, fields)
order = []
def visit(path):
    name = path.split("::")[-1]
    if name in seen:
        if seen[name][0] != path:
            raise SystemExit("name clash %s vs %s" % (path, seen[name][0]))
        return
    seen[name] = (path, None)
    n, fields = read_struct(path)
    seen[name] = (path, fields)
    order.append(name)
    for _, ty, _ in fields:
        for ref in re.findall(r"crate::((?:api|apimachinery)::[a-zA-Z0-9_:]+)", ty):
            if "crate::" + ref in TYPEMAP:
                continue
            visit(ref)

for r in ROOTS:
    visit(r)

def kind_expr(ty):
    if ty in TYPEMAP:
        return "Kind::" + TYPEMAP[ty]
    m = re.fullmatch(r"std::vec::Vec<(.*)>", ty)
    if m:
        return "Kind::List(&%s)" % kind_expr(m.group(1))
    m = re.fullmatch(r"std::collections::BTreeMap<std::string::String, (.*)>", ty)
    if m:
        return "Kind::Map(&%s)" % kind_expr(m.group(1))
    m = re.fullmatch(r"crate::(.*)", ty)
    if m:
        return "Kind::Struct(&%s)" % static_name(m.group(1).split("::")[-1])
    raise SystemExit("unmapped type " + ty)

def static_name(n):
    return re.sub(r"(?<!^)(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", n).upper()

SCALARS = {"Str", "I32", "I64", "F64", "Bool"}
print("// @generated by tools/gen_k8s_schema.py from k8s-openapi v1_36 and")
print("// its table of always-emitted fields (ALWAYS). Do not edit by hand.")
print("#![allow(missing_docs)]")
print("use super::{Emit, Field, Kind, Ty};")
print()
unused_always = {k: set(v) for k, v in ALWAYS.items()}
emitted = {}
for name in order:
    path, fields = seen[name]
    root = path in ["api::" + r.split("api::", 1)[1] for r in ROOTS]
    fl = []
    if root:
        fl.append(("apiVersion", "Kind::Str", "Emit::Omit"))
        fl.append(("kind", "Kind::Str", "Emit::Omit"))
    values = set(VALUE_SCALARS.get(name, "").split())
    for json, ty, opt in fields:
        k = kind_expr(ty)
        a = ALWAYS.get(name, {})
        if json in a:
            unused_always[name].discard(json)
            v = a[json]
            emit = "Emit::AlwaysNull" if v in ("null", "nullt") else "Emit::AlwaysZero"
        elif name == "ObjectMeta" and json == "creationTimestamp":
            emit = "Emit::Omit"
        elif (not opt) and TYPEMAP.get(ty) in SCALARS and not root:
            # required in OpenAPI but not listed as always-emitted: Go omitempty value field
            emit = "Emit::OmitZero"
        elif TYPEMAP.get(ty) in SCALARS and json in values:
            emit = "Emit::OmitZero"
        else:
            emit = "Emit::Omit"
        fl.append((json, k, emit))
    fl.sort(key=lambda f: f[0])
    emitted[name] = fl
    print("pub static %s: Ty = Ty {" % static_name(name))
    print('    name: "%s",' % name)
    print("    fields: &[")
    for json, k, emit in fl:
        print('        Field { json: "%s", kind: %s, emit: %s },' % (json, k, emit))
    print("    ],")
    print("};")
# Member statuses as Karmada's InterpretStatus writes them for the
# generation-aware workloads: the kind's status plus two int64 keys, in one
# sorted field list (the walks go through a type's fields in order).
for wrapped in ["DeploymentStatus", "ReplicaSetStatus", "StatefulSetStatus", "DaemonSetStatus"]:
    path, fields = seen[wrapped]
    fl = [("generation", "Kind::I64", "Emit::OmitZero"), ("resourceTemplateGeneration", "Kind::I64", "Emit::OmitZero")]
    fl += emitted[wrapped]
    fl.sort(key=lambda f: f[0])
    print("pub static WRAPPED_%s: Ty = Ty {" % static_name(wrapped))
    print('    name: "Wrapped%s",' % wrapped)
    print("    fields: &[")
    for json, k, emit in fl:
        print('        Field { json: "%s", kind: %s, emit: %s },' % (json, k, emit))
    print("    ],")
    print("};")
for n, left in unused_always.items():
    if left and n in seen:
        print("// WARNING unused always fields %s: %s" % (n, left), file=sys.stderr)
    if n not in seen:
        print("// WARNING ALWAYS type not reached: %s" % n, file=sys.stderr)
