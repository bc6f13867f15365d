{{/* The release's base name; every object of the release is named from it. */}}
{{- define "service.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "service.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* What selects the release's pods; a component label narrows it to API, worker or migrations. */}}
{{- define "service.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "service.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
The data directory (where the emptyDir is mounted), then backend.env, for every process. Values that
are not strings go through toJson: Helm reads numbers as floats and would print 1073741824 as
1.073741824e+09; JSON keeps their digits, and true stays "true".
*/}}
{{- define "service.env" -}}
- name: SERVICE_DATA_DIR
  value: {{ .Values.backend.dataDir | quote }}
{{- range $name, $value := .Values.backend.env }}
- name: {{ $name }}
  {{- if kindIs "string" $value }}
  value: {{ $value | quote }}
  {{- else }}
  value: {{ $value | toJson | quote }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* What the long-running processes add: with the migration Job on, they never migrate themselves (a schema behind stops them with one line). */}}
{{- define "service.runtimeEnv" -}}
{{- if .Values.migrations.enabled }}
- name: SERVICE_DATABASE_AUTO_MIGRATE
  value: "false"
{{- end }}
{{- end -}}

{{/* Writable places on a read-only root filesystem: the data directory (DuckDB's spill directory, work files, the object cache) and /tmp. */}}
{{- define "service.volumeMounts" -}}
- name: data
  mountPath: {{ .Values.backend.dataDir }}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "service.volumes" -}}
- name: data
  emptyDir:
    sizeLimit: {{ .Values.backend.dataDirSizeLimit }}
- name: tmp
  emptyDir:
    sizeLimit: 1Gi
{{- end -}}
