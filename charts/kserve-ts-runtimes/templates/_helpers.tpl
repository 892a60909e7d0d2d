{{/* image reference from { repository, tag } */}}
{{- define "kserve-ts-runtimes.image" -}}
{{ .repository }}:{{ .tag }}
{{- end -}}

{{- define "kserve-ts-runtimes.labels" -}}
app.kubernetes.io/name: kserve-ts-runtimes
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
