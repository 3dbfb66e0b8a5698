#!/usr/bin/env bash
# The execution environment for AWX / Automation Platform (README: `make ee`).
# Builds the collection tarball into dist/ (tools/build.sh), then the ansible-builder context of
# ee/execution-environment.yml into .tmp/ee/context. With `build`, also builds the image
# (needs podman or docker; neither runs on every machine, so it is not the default).
# Usage: tools/ee.sh [create|build] [extra ansible-builder arguments]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

action=${1:-create}
[ $# -gt 0 ] && shift
case $action in create|build) ;; *) die "usage: $0 [create|build] [ansible-builder arguments]" ;; esac

"$REPO/tools/build.sh"

context="$REPO/.tmp/ee/context"
if [ "$action" = create ]; then
    "$CEILING_VENV/bin/ansible-builder" create --file "$REPO/ee/execution-environment.yml" \
        --context "$context" --output-filename Containerfile "$@"
    log "build context: $context (build it with: podman build -f Containerfile -t cloudcompute-cloud-ee $context)"
else
    runtime=$(command -v podman || command -v docker) || die "neither podman nor docker is installed; 'make ee' creates the context only"
    "$CEILING_VENV/bin/ansible-builder" build --file "$REPO/ee/execution-environment.yml" \
        --context "$context" --container-runtime "$(basename "$runtime")" "$@"
fi
