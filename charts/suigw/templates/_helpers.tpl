{{- define "suigw.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "suigw.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "gateway") */}}
{{- define "suigw.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "suigw.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "suigw.secretName" -}}
{{- .Values.secret.existingSecret | default (printf "%s-config" (include "suigw.fullname" .)) -}}
{{- end -}}

{{/* The environment every suigw role reads (services/core/config.ts): secrets from the Secret, the rest inline. */}}
{{- define "suigw.env" -}}
- name: HOST
  value: 0.0.0.0
- name: LOG_LEVEL
  value: {{ .Values.config.logLevel | quote }}
- name: SUIGW_METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: SUIGW_NETWORKS
  value: {{ keys .Values.networks | sortAlpha | join "," | quote }}
{{- range $name, $value := .Values.config.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- range $key := list "SUIGW_SECRET" "DATABASE_URL" "REDIS_URL" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "suigw.secretName" $ }}
      key: {{ $key }}
{{- end }}
{{- end -}}

{{- define "suigw.podSpecCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
