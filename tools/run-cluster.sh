#!/usr/bin/env bash
# run-cluster.sh: three NATS servers with JetStream and three fount nodes
# on loopback, for trying fount on several nodes (README, "Running several
# nodes"). Ctrl-C stops them all. State stays in $CLUSTER_DIR.
#
# Environment (defaults in brackets): CLUSTER_DIR [./fount-cluster],
# NATS_PORT [4222] and NATS_CLUSTER_PORT [6222] (the first server's; the
# others follow), FOUNT_PORT [8081] (node 1's API; the others follow) and
# ENDPOINT_PORT [8181] (node 1's endpoints; the others follow).
set -euo pipefail

dir=${CLUSTER_DIR:-./fount-cluster}
nats_port=${NATS_PORT:-4222}
nats_cluster_port=${NATS_CLUSTER_PORT:-6222}
fount_port=${FOUNT_PORT:-8081}
endpoint_port=${ENDPOINT_PORT:-8181}
GO=${GO:-go}

"$GO" build -buildvcs=auto -o bin/fount ./cmd/fount
"$GO" build -o bin/devnats ./tools/devnats
mkdir -p "$dir"
# One owner key for the cluster, and one secret key file that every node
# shares: each opens the secrets the others sealed.
[ -s "$dir/owner.key" ] || head -c 48 /dev/urandom | base64 | tr -d '/+=\n' | head -c 40 >"$dir/owner.key"
chmod 600 "$dir/owner.key"

pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop EXIT INT TERM

bin/devnats --dir "$dir/nats" --port "$nats_port" --cluster-port "$nats_cluster_port" >"$dir/nats.urls" &
pids+=($!)
for _ in $(seq 1 600); do [ -s "$dir/nats.urls" ] && break; sleep 0.1; done
urls=$(cat "$dir/nats.urls")
[ -n "$urls" ] || { echo "the NATS servers did not start" >&2; exit 1; }
echo "NATS: $urls"

for i in 1 2 3; do
	port=$((fount_port + i - 1))
	endpoints=$((endpoint_port + i - 1))
	FOUNT_BOOTSTRAP_API_KEY=$(cat "$dir/owner.key") bin/fount serve --store "$urls" --nats-replicas 3 \
		--secret-key-file "$dir/secret.key" --node-name "node$i" --addr "127.0.0.1:$port" \
		--endpoint-addr "127.0.0.1:$endpoints" --data-dir "$dir/node$i" 2>"$dir/node$i.log" &
	pids+=($!)
	echo "node$i: API http://127.0.0.1:$port, endpoints http://127.0.0.1:$endpoints (logs in $dir/node$i.log)"
done
echo "owner key: $dir/owner.key; Ctrl-C stops everything"
wait
