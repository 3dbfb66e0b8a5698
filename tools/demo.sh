#!/usr/bin/env bash
# The main job (README: `make demo`): start the emulator on loopback, run playbooks/demo.yml
# against it, stop the emulator. Extra arguments go to ansible-playbook (e.g. -v, --diff).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$REPO/tools/bootstrap.sh" ceiling
stage_collection

workdir="$REPO/.tmp/demo"
mkdir -p "$workdir"
credentials="$workdir/emulator-credentials.json"
port=$("$CEILING_VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

log "starting the emulator on 127.0.0.1:$port (demo timing profile)"
"$CEILING_VENV/bin/cloudcompute-emulator" --host 127.0.0.1 --port "$port" --profile demo \
    --credentials-file "$credentials" > "$workdir/emulator.log" 2>&1 &
emulator_pid=$!
trap 'kill "$emulator_pid" 2>/dev/null; wait "$emulator_pid" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
    [ -s "$credentials" ] && curl -fsS "http://127.0.0.1:$port/_emulator/health" >/dev/null 2>&1 && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$workdir/emulator.log" >&2; die "the emulator did not start"; }
    sleep 0.1
done

read_credential() { "$CEILING_VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$credentials" "$1"; }
CLOUDCOMPUTE_API_URL=$(read_credential api_url)
CLOUDCOMPUTE_CLIENT_ID=$(read_credential client_id)
CLOUDCOMPUTE_CLIENT_SECRET=$(read_credential client_secret)
export CLOUDCOMPUTE_API_URL CLOUDCOMPUTE_CLIENT_ID CLOUDCOMPUTE_CLIENT_SECRET
export CLOUDCOMPUTE_TOKEN_CACHE="$workdir/token-cache"
export ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" ANSIBLE_NOCOLOR="${ANSIBLE_NOCOLOR:-${CI:+1}}"
# The demo's control node is the implicit localhost; its hosts come from the inventory plugin.
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false

log "running playbooks/demo.yml against $CLOUDCOMPUTE_API_URL"
cd "$STAGED_COLLECTION"
PATH="$CEILING_VENV/bin:$PATH" "$CEILING_VENV/bin/ansible-playbook" playbooks/demo.yml \
    -e "demo_workdir=$workdir" -e "ansible_python_interpreter=$CEILING_VENV/bin/python" "$@"
log "demo finished; emulator log: $workdir/emulator.log"
