#!/usr/bin/env bash
# The main job (README: `make demo`): start the emulator on loopback (instances get 127.1.x.y
# addresses), start a throwaway sshd that answers on all of them, run playbooks/demo.yml, then
# stop both. Without a working sshd the demo's configuration play uses a local connection and
# says so (DEMO_SSH=off forces that). Extra arguments go to ansible-playbook (e.g. -v, --diff).
# For tests that run the demo as it is (tests/reliability/test_secrets.py): DEMO_WORKDIR moves
# its working directory (default .tmp/demo; emptied first), DEMO_EMULATOR_ARGS adds emulator options (e.g.
# "--profile test"; they come after the defaults, so they win).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

started=$(date +%s)
"$REPO/tools/bootstrap.sh" demo
stage_collection

workdir="${DEMO_WORKDIR:-$REPO/.tmp/demo}"
read -r -a emulator_arguments <<< "${DEMO_EMULATOR_ARGS:-}"
rm -rf "$workdir"
mkdir -p "$workdir/inventory"
chmod 700 "$workdir"
# The inventory directory the playbook adds the inventory plugin's file to before it refreshes
# the inventory; until then it holds the control node only.
cat > "$workdir/inventory/localhost.yml" <<'EOF'
all:
  hosts:
    localhost:
      ansible_connection: local
EOF
credentials="$workdir/emulator-credentials.json"
free_port() { "$CEILING_VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

emulator_pid="" sshd_pid="" agent_pid="" ssh_control=""
cleanup() {
    # only the processes this script started: the ssh connections it kept open, the ssh agent,
    # sshd, the emulator
    local control
    if [ -n "$ssh_control" ]; then
        for control in "$ssh_control"/*; do
            [ "$control" != "$ssh_control/agent" ] || continue
            # a master that already went away answers 255: never the demo's exit status
            if [ -S "$control" ]; then ssh -o ControlPath="$control" -O exit demo-host >/dev/null 2>&1 || true; fi
        done
        rm -rf "$ssh_control"
    fi
    [ -z "$agent_pid" ] || kill "$agent_pid" 2>/dev/null
    [ -z "$sshd_pid" ] || { kill "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null || true; }
    [ -z "$emulator_pid" ] || { kill "$emulator_pid" 2>/dev/null; wait "$emulator_pid" 2>/dev/null || true; }
}
trap cleanup EXIT

port=$(free_port)
log "starting the emulator on 127.0.0.1:$port (demo timing profile, loopback instance addresses)"
"$CEILING_VENV/bin/cloudcompute-emulator" --host 127.0.0.1 --port "$port" --profile demo \
    --instance-ip-mode loopback --credentials-file "$credentials" "${emulator_arguments[@]}" > "$workdir/emulator.log" 2>&1 &
emulator_pid=$!

# A local sshd standing in for the instances' sshd: it listens on every loopback address, lets
# in only the current user from loopback with the key the demo registers (the playbook writes
# it to authorized_keys, as a cloud instance's first boot would), and runs until the demo ends.
start_sshd() {
    local sshd_dir="$workdir/sshd" user sshd_port
    [ -x /usr/sbin/sshd ] || { log "no /usr/sbin/sshd (openssh-server)"; return 1; }
    command -v ssh >/dev/null || { log "no ssh client (openssh-client)"; return 1; }
    user=$(id -un)
    sshd_port=$(free_port)
    mkdir -p "$sshd_dir"
    ssh-keygen -q -t ed25519 -N "" -C demo-sshd -f "$sshd_dir/host_ed25519" || return 1
    : > "$sshd_dir/authorized_keys"
    cat > "$sshd_dir/sshd_config" <<EOF
Port $sshd_port
ListenAddress 0.0.0.0
AllowUsers $user@127.0.0.0/8
HostKey $sshd_dir/host_ed25519
PidFile $sshd_dir/sshd.pid
AuthorizedKeysFile $sshd_dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowTcpForwarding yes
Subsystem sftp internal-sftp
EOF
    # the ssh client side: this sshd's host key pinned, the demo's key, one reused connection per
    # host (closed by cleanup); ansible passes -F to ssh and sftp. The hosts' own ssh options
    # (the collection's HostKeyAlias and known_hosts) come first and win; the hop to a worker's
    # jump host is a ProxyCommand, a second ssh that reads no -F: it gets the key from an agent
    printf '* %s\n' "$(cut -d' ' -f1,2 "$sshd_dir/host_ed25519.pub")" > "$workdir/known_hosts"
    # a socket path must fit in 108 bytes: not under the working directory, which may be deep
    ssh_control=$(mktemp -d /tmp/cc-demo-ssh.XXXXXX)
    # the demo's key pair, made here (the playbook makes it only when it is missing) to be loaded
    # into an agent of this demo's own
    ssh-keygen -q -t ed25519 -N "" -C ansible-demo -f "$workdir/id_ed25519" || return 1
    eval "$(ssh-agent -s -a "$ssh_control/agent")" >/dev/null || return 1
    agent_pid=$SSH_AGENT_PID
    ssh-add -q "$workdir/id_ed25519" 2>/dev/null || { log "ssh-add could not load the demo's key"; return 1; }
    cat > "$workdir/ssh_config" <<EOF
Host *
  UserKnownHostsFile $workdir/known_hosts
  StrictHostKeyChecking yes
  IdentityFile $workdir/id_ed25519
  IdentitiesOnly yes
  BatchMode yes
  ControlMaster auto
  ControlPersist 60s
  ControlPath $ssh_control/%C
EOF
    [ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd  # its privilege separation directory
    /usr/sbin/sshd -D -e -f "$sshd_dir/sshd_config" > "$sshd_dir/sshd.log" 2>&1 &
    sshd_pid=$!
    for _ in $(seq 1 50); do
        kill -0 "$sshd_pid" 2>/dev/null || { sshd_pid=""; log "sshd exited: $(tail -n 3 "$sshd_dir/sshd.log")"; return 1; }
        (exec 3<>"/dev/tcp/127.0.0.1/$sshd_port") 2>/dev/null && {
            ssh_arguments=(-e "demo_sshd_port=$sshd_port" -e "demo_ssh_user=$user"
                           -e "demo_authorized_keys_file=$sshd_dir/authorized_keys")
            export ANSIBLE_SSH_ARGS="-F $workdir/ssh_config"
            log "sshd listening on port $sshd_port of every loopback address: the configuration play will use SSH"
            return 0
        }
        sleep 0.1
    done
    log "sshd did not answer on port $sshd_port"
    return 1
}
ssh_arguments=()
if [ "${DEMO_SSH:-on}" = off ]; then
    log "DEMO_SSH=off: no local sshd; the configuration play will use a local connection"
else
    start_sshd || log "no local sshd: the configuration play will use a local connection"
fi

for _ in $(seq 1 200); do
    [ -s "$credentials" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$workdir/emulator.log" >&2; die "the emulator did not start"; }
    sleep 0.1
done
[ -s "$credentials" ] || die "the emulator did not start within 20 s (log: $workdir/emulator.log)"

read_credential() { "$CEILING_VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$credentials" "$1"; }
CLOUDCOMPUTE_API_URL=$(read_credential api_url)
CLOUDCOMPUTE_CLIENT_ID=$(read_credential client_id)
CLOUDCOMPUTE_CLIENT_SECRET=$(read_credential client_secret)
export CLOUDCOMPUTE_API_URL CLOUDCOMPUTE_CLIENT_ID CLOUDCOMPUTE_CLIENT_SECRET
export CLOUDCOMPUTE_TOKEN_CACHE="$workdir/token-cache"
export ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS_ROOT" ANSIBLE_NOCOLOR="${ANSIBLE_NOCOLOR:-${CI:+1}}"
# The control node is the implicit localhost; the hosts come from the roles and, after the
# refresh, from the inventory plugin's file the playbook writes into $workdir/inventory.
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
# The summary table is a multi-line string: print it as YAML, not as an escaped JSON string.
export ANSIBLE_CALLBACK_RESULT_FORMAT=yaml ANSIBLE_FORKS=10

log "running playbooks/demo.yml against $CLOUDCOMPUTE_API_URL"
cd "$STAGED_COLLECTION"
PATH="$CEILING_VENV/bin:$PATH" "$CEILING_VENV/bin/ansible-playbook" playbooks/demo.yml -i "$workdir/inventory" \
    -e "demo_workdir=$workdir" -e "ansible_python_interpreter=$CEILING_VENV/bin/python" "${ssh_arguments[@]}" "$@"
log "demo finished in $(( $(date +%s) - started )) s; emulator log: $workdir/emulator.log"
