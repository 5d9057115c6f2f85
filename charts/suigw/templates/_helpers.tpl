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

{{- /*
The settings every suigw pod reads (services/core/config.ts), the chart's own and the operator's
stream workers and billing Jobs alike, as `name: "value"` lines: LOG_LEVEL from `config.logLevel`,
then `config.env` (its own LOG_LEVEL gives way). The ConfigMap `<release>-environment` holds them
(templates/environment.yaml).
*/}}
{{- define "suigw.settings" -}}
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
{{- range $name, $value := .Values.config.env }}
{{- if ne $name "LOG_LEVEL" }}
{{ $name }}: {{ $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "suigw.environmentName" -}}
{{- printf "%s-environment" (include "suigw.fullname" .) -}}
{{- end -}}

{{/* What a pod template carries so that a change of the settings rolls its pods, as a change of its own spec would. */}}
{{- define "suigw.settingsChecksum" -}}
checksum/environment: {{ include "suigw.settings" . | sha256sum | trunc 16 | quote }}
{{- end -}}

{{/* The environment every suigw role reads (services/core/config.ts) beside the ConfigMap's and the Secret's (envFrom): what the chart fixes, and the Secret's required keys. */}}
{{- define "suigw.env" -}}
- name: HOST
  value: 0.0.0.0
- name: SUIGW_METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
- name: SUIGW_NETWORKS
  value: {{ keys .Values.networks | sortAlpha | join "," | quote }}
{{- range $key := include "suigw.requiredSecretKeys" . | splitList " " }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "suigw.secretName" $ }}
      key: {{ $key }}
{{- end }}
{{- end -}}

{{- /*
The keys every role needs from the Secret, each named in `env` (above) so a Secret without one
stops the pod from starting (CreateContainerConfigError) instead of the role falling back to a
default database.
*/}}
{{- define "suigw.requiredSecretKeys" -}}SUIGW_SECRET DATABASE_URL REDIS_URL{{- end -}}

{{- /*
The environment a role reads that must never sit in a ConfigMap or a pod spec
(services/core/config.ts): `config.env` refuses them, `secret.extra` (or secret.existingSecret) carries them.
*/}}
{{- define "suigw.secretEnvKeys" -}}SUIGW_SECRET DATABASE_URL REDIS_URL SUIGW_BILLING_SPONSOR_KEY SUIGW_SMTP_URL SUIGW_ZKLOGIN_SALT_SECRET{{- end -}}

{{- /*
Every key of the settings' ConfigMap, then of the Secret, as environment (`envFrom`), as the
operator's stream workers and billing Jobs get them: so the Secret carries any other secret a
role reads (`secret.extra`: the billing sponsor key, an SMTP URL with its password) without it
being written into a pod spec. The Secret's keys win over the ConfigMap's, `env` over both.
*/}}
{{- define "suigw.envFrom" -}}
- configMapRef:
    name: {{ include "suigw.environmentName" . }}
{{- include "suigw.secretEnvFrom" . | nindent 0 }}
{{- end -}}

{{- define "suigw.secretEnvFrom" -}}
- secretRef:
    name: {{ include "suigw.secretName" . }}
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

{{/*
What values.schema.json cannot say, since it sees one value at a time: a release name the
objects' names can carry, and no port used twice in one pod. Fails the render with the reason.
*/}}
{{- /*
The port of a role's Service: what Envoy's clusters dial (the operator's BACKEND_PORTS,
operator/settings.ts), whatever port the role's container listens on (`roles.<role>.port`,
its `targetPort`). test/helm/chart.values.test.ts holds the two lists equal.
*/}}
{{- define "suigw.servicePort" -}}
{{- get (dict "gateway" 8080 "grpc" 9090 "authz" 9001 "ratelimit" 9002 "streams" 8090) . -}}
{{- end -}}

{{- /*
Envoy's own listeners, fixed by the bootstrap (envoy-bootstrap.yaml): readiness and Prometheus
stats on all interfaces, the admin interface on loopback only. One place, so the pod, its probes,
its stats Service and the port check below cannot disagree.
*/}}
{{- define "suigw.envoyReadyPort" -}}19001{{- end -}}
{{- define "suigw.envoyAdminPort" -}}9901{{- end -}}

{{- define "suigw.validate" -}}
{{- /* Services are named after the release: a DNS-1035 label (Helm itself allows dots and a leading digit). */}}
{{- if not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" .Release.Name) }}
{{- fail (printf "release name %q: this chart names Services after the release, so it must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or digit; no dots)" .Release.Name) }}
{{- end }}
{{- if ge (int .Values.shutdown.delaySeconds) (int .Values.shutdown.gracePeriodSeconds) }}
{{- fail (printf "shutdown.delaySeconds (%d) must be below shutdown.gracePeriodSeconds (%d): the delay counts against the grace period, and the process needs time to drain after it" (int .Values.shutdown.delaySeconds) (int .Values.shutdown.gracePeriodSeconds)) }}
{{- end }}
{{- if ge (int .Values.envoy.drainSeconds) (int .Values.shutdown.gracePeriodSeconds) }}
{{- fail (printf "envoy.drainSeconds (%d) must be below shutdown.gracePeriodSeconds (%d): Envoy's pod has that grace period too, and the kubelet kills it at its end" (int .Values.envoy.drainSeconds) (int .Values.shutdown.gracePeriodSeconds)) }}
{{- end }}
{{- /* Each pod's ports, by the value that sets them (Envoy's readiness/stats and admin ports are the chart's own). */}}
{{- $pods := dict }}
{{- range $role, $spec := .Values.roles }}
{{- $_ := set $pods (printf "the %s pod" $role) (list (list (printf "roles.%s.port" $role) $spec.port) (list "metrics.port" $.Values.metrics.port)) }}
{{- end }}
{{- /* A role's Service carries its fixed port and the metrics port. */}}
{{- range $role, $spec := .Values.roles }}
{{- $_ := set $pods (printf "the %s role's Service" $role) (list (list (printf "the %s Service's port (fixed: Envoy dials it)" $role) (include "suigw.servicePort" $role)) (list "metrics.port" $.Values.metrics.port)) }}
{{- end }}
{{- $_ := set $pods "the operator pod" (list (list "operator.xdsPort" .Values.operator.xdsPort) (list "metrics.port" .Values.metrics.port)) }}
{{- $_ := set $pods "the envoy pod" (list (list "envoy.port" .Values.envoy.port) (list "Envoy's readiness and stats listener" (include "suigw.envoyReadyPort" .)) (list "Envoy's admin interface" (include "suigw.envoyAdminPort" .))) }}
{{- range $key := include "suigw.secretEnvKeys" . | splitList " " }}
{{- if hasKey $.Values.config.env $key }}
{{- fail (printf "config.env.%s: a secret, which config.env would write into every pod spec in clear; put it in secret.extra (or in the Secret secret.existingSecret names)" $key) }}
{{- end }}
{{- end }}
{{- if and .Values.secret.existingSecret .Values.secret.extra }}
{{- fail (printf "secret.extra (%s): the chart makes no Secret when secret.existingSecret is set; put these keys in the Secret %q" (keys .Values.secret.extra | sortAlpha | join ", ") .Values.secret.existingSecret) }}
{{- end }}
{{- range $key := list "SUIGW_SECRET" "DATABASE_URL" "REDIS_URL" "POSTGRES_PASSWORD" }}
{{- if hasKey $.Values.secret.extra $key }}
{{- fail (printf "secret.extra.%s: the chart sets this key of its Secret itself (secret.databaseUrl, secret.redisUrl, or secret.existingSecret to manage them all)" $key) }}
{{- end }}
{{- end }}
{{- range $pod, $ports := $pods }}
{{- $seen := dict }}
{{- range $ports }}
{{- $port := toString (index . 1) }}
{{- if hasKey $seen $port }}
{{- fail (printf "port %s is used twice in %s: by %s and by %s; give each its own port" $port $pod (get $seen $port) (index . 0)) }}
{{- end }}
{{- $_ := set $seen $port (index . 0) }}
{{- end }}
{{- end }}
{{- end -}}
