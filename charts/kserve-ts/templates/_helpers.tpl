{{- define "kserve-ts.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{ end }}
{{- end -}}

{{- define "kserve-ts.selectorLabels" -}}
app.kubernetes.io/name: kserve-ts-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kserve-ts.labels" -}}
{{ include "kserve-ts.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "kserve-ts.webhookService" -}}{{ include "kserve-ts.fullname" . }}-webhook{{- end -}}
{{- define "kserve-ts.certSecret" -}}{{ include "kserve-ts.fullname" . }}-webhook-cert{{- end -}}
