#!/usr/bin/env bash
# `make e2e-kind`: install charts/suigw into a kind cluster and check Envoy, xDS and the roles
# end to end. Needs docker, kind, kubectl and helm on a machine that can run a cluster (the
# development machines of this project cannot: no Docker engine). `make e2e-kind` builds the
# image first (`make image`: ghcr.io/suigw/suigw:<package.json version>, the chart's default);
# SUIGW_IMAGE=repository:tag runs another one.
# KEEP_CLUSTER=1 leaves the cluster up for a look around.
set -euo pipefail
cd "$(dirname "$0")/.."

CLUSTER=${CLUSTER:-suigw-e2e}
NAMESPACE=${NAMESPACE:-suigw}
IMAGE=${SUIGW_IMAGE:-ghcr.io/suigw/suigw:$(node -p 'require("./package.json").version')}
HOST_HEADER=mainnet.api.example.com

for tool in docker kind kubectl helm curl; do
  command -v "$tool" >/dev/null || { echo "e2e-kind: $tool is required" >&2; exit 2; }
done

step() { printf '\n== %s\n' "$*"; }

step "1. a kind cluster named $CLUSTER"
kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --wait 120s
kubectl config use-context "kind-$CLUSTER"

step "2. the suigw image inside the cluster"
docker image inspect "$IMAGE" >/dev/null 2>&1 || docker pull "$IMAGE"
kind load docker-image "$IMAGE" --name "$CLUSTER"

step "3. helm install with the chart's defaults (bundled PostgreSQL and Redis), Envoy as a NodePort"
helm upgrade --install suigw charts/suigw --namespace "$NAMESPACE" --create-namespace \
  --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" \
  --set envoy.service.type=NodePort --wait --timeout 10m

step "4. every Deployment rolled out, the migrations Job done"
for deployment in $(kubectl -n "$NAMESPACE" get deployments -o name); do
  kubectl -n "$NAMESPACE" rollout status "$deployment" --timeout 300s
done

step "5. Envoy is connected to the operator's ADS and has its listener"
kubectl -n "$NAMESPACE" port-forward svc/suigw-envoy-stats 19001:19001 >/dev/null 2>&1 &
STATS_PID=$!
kubectl -n "$NAMESPACE" port-forward svc/suigw-envoy 18080:80 >/dev/null 2>&1 &
PUBLIC_PID=$!
trap 'kill $STATS_PID $PUBLIC_PID 2>/dev/null || true; [ "${KEEP_CLUSTER:-0}" = 1 ] || kind delete cluster --name "$CLUSTER"' EXIT
sleep 3
curl -fsS http://127.0.0.1:19001/stats/prometheus | grep -E '^envoy_control_plane_connected_state(\{[^}]*\})? 1$'
curl -fsS http://127.0.0.1:19001/stats/prometheus | grep -E '^envoy_listener_manager_total_listeners_active(\{[^}]*\})? [1-9]'

step "6. through Envoy: health is public, the API refuses a request without a key (401)"
curl -fsS -H "Host: $HOST_HEADER" http://127.0.0.1:18080/health
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: $HOST_HEADER" http://127.0.0.1:18080/v1/checkpoints/latest)
[ "$status" = 401 ] || { echo "expected 401 without a key, got $status" >&2; exit 1; }

step "7. the roles are not reachable around Envoy (NetworkPolicy; needs a CNI that enforces it)"
if kubectl -n "$NAMESPACE" run np-probe --rm -i --restart=Never --image=curlimages/curl -- \
  curl -s -m 5 -o /dev/null "http://suigw-gateway:8080/health"; then
  echo "warning: the gateway answered a pod that is not Envoy: kind's default CNI does not enforce NetworkPolicy (install Calico to check this)"
fi

echo; echo "e2e-kind: passed"
