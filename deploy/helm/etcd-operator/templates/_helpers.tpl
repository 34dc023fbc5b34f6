{{/* Labels of every object: the chart's name and the release. */}}
{{- define "etcd-operator.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* What the operator does to the objects of the clusters it watches; leases are separate. */}}
{{- define "etcd-operator.rules" -}}
- apiGroups: [etcd.aenix.io]
  resources: [etcdclusters]
  verbs: [get, list, watch, update, patch]
- apiGroups: [etcd.aenix.io]
  resources: [etcdclusters/status]
  verbs: [get, update, patch]
- apiGroups: [etcd.aenix.io]
  resources: [etcdclusters/finalizers]
  verbs: [update]
- apiGroups: [etcd.aenix.io]
  resources: [etcdbackups]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [etcd.aenix.io]
  resources: [etcdbackups/status, etcdbackupschedules/status]
  verbs: [get, update, patch]
- apiGroups: [etcd.aenix.io]
  resources: [etcdbackups/finalizers, etcdbackupschedules/finalizers]
  verbs: [update]
- apiGroups: [etcd.aenix.io]
  resources: [etcdbackupschedules]
  verbs: [get, list, watch, update, patch]
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [services, configmaps]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch, create, delete]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, patch, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end }}
