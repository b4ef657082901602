#!/usr/bin/env bash
# The container's entrypoint (deploy/Dockerfile).
#
# Without DFX_JOB: runs `dfx "$@"` (e.g. `docker run dfx:latest --version`).
#
# With DFX_JOB (deploy/k8s/ sets it): this pod is one task of a cluster
# whose jobs are StatefulSets, as Kubeflow's TFJob lays them out. The task
# index is the pod's ordinal (the hostname's last "-N": pod dfx-worker-2 is
# worker task 2), and every task's address is its stable DNS name under its
# job's headless Service:
#
#   <DFX_NAME>-<job>-<i>.<DFX_NAME>-<job>.<namespace>.svc.<DFX_CLUSTER_DOMAIN>:<DFX_PORT>
#
# It exports TF_CONFIG ({"cluster": {...}, "task": {"type": JOB, "index":
# N}}), which `dfx server` reads, waits until the pod's own name resolves
# (the server listens on its task's address), and execs
# `dfx server --http-port DFX_HTTP_PORT "$@"`.
#
# Environment: DFX_JOB (this pod's job), DFX_JOBS ("ps=2,worker=3": every
# job and its replicas), DFX_NAME (default dfx), POD_NAMESPACE (default
# default), DFX_CLUSTER_DOMAIN (default cluster.local), DFX_PORT (default
# 2222), DFX_HTTP_PORT (default 8080), DFX_DNS_WAIT_SECONDS (default 300;
# 0: do not wait), DFX_BIN (default dfx).
set -euo pipefail
DFX_BIN=${DFX_BIN:-dfx}
if [ -z "${DFX_JOB:-}" ]; then
  exec "$DFX_BIN" "$@"
fi

die() { echo "dfx-entrypoint: error: $*" >&2; exit 2; }
NAME=${DFX_NAME:-dfx}
NAMESPACE=${POD_NAMESPACE:-default}
DOMAIN=${DFX_CLUSTER_DOMAIN:-cluster.local}
PORT=${DFX_PORT:-2222}
HTTP_PORT=${DFX_HTTP_PORT:-8080}
[ -n "${DFX_JOBS:-}" ] || die "DFX_JOBS is not set (e.g. DFX_JOBS=ps=2,worker=3)"
[[ "$PORT" =~ ^[0-9]+$ && "$HTTP_PORT" =~ ^[0-9]+$ ]] ||
  die "DFX_PORT and DFX_HTTP_PORT must be port numbers"

# The ordinal: StatefulSet pods are named <statefulset>-<ordinal>.
POD=${POD_NAME:-$(hostname)}
INDEX=${POD##*-}
[[ "$INDEX" =~ ^[0-9]+$ ]] || die "pod name '$POD' does not end in -ORDINAL"
INDEX=$((10#$INDEX))

address() {  # job index
  echo "$NAME-$1-$2.$NAME-$1.$NAMESPACE.svc.$DOMAIN:$PORT"
}

cluster=""
found_job=0
IFS=',' read -r -a specs <<<"$DFX_JOBS"
for spec in "${specs[@]}"; do
  job=${spec%%=*}
  replicas=${spec#*=}
  [[ "$job" =~ ^[a-z][a-z0-9_]*$ ]] || die "bad job name '$job' in DFX_JOBS"
  [[ "$replicas" =~ ^[0-9]+$ && "$replicas" -ge 1 ]] ||
    die "bad replica count '$replicas' for job $job in DFX_JOBS"
  tasks=""
  for ((i = 0; i < replicas; i++)); do
    tasks+="${tasks:+, }\"$(address "$job" "$i")\""
  done
  cluster+="${cluster:+, }\"$job\": [$tasks]"
  if [ "$job" = "$DFX_JOB" ]; then
    found_job=1
    [ "$INDEX" -lt "$replicas" ] ||
      die "pod $POD: ordinal $INDEX, but job $job has $replicas replica(s)"
  fi
done
[ "$found_job" = 1 ] || die "DFX_JOB '$DFX_JOB' is not in DFX_JOBS '$DFX_JOBS'"
export TF_CONFIG="{\"cluster\": {$cluster}, \"task\": {\"type\": \"$DFX_JOB\", \"index\": $INDEX}}"
echo "dfx-entrypoint: TF_CONFIG=$TF_CONFIG" >&2

# The server binds its own task's address: wait until the headless Service
# publishes this pod's name (publishNotReadyAddresses: true publishes it
# before the pod is ready).
self=$(address "$DFX_JOB" "$INDEX")
self_host=${self%:*}
wait_s=${DFX_DNS_WAIT_SECONDS:-300}
deadline=$((SECONDS + wait_s))
until [ "$wait_s" = 0 ] || getent hosts "$self_host" >/dev/null; do
  [ $SECONDS -lt $deadline ] || die "$self_host does not resolve after $wait_s s"
  sleep 1
done
exec "$DFX_BIN" server --http-port "$HTTP_PORT" "$@"
