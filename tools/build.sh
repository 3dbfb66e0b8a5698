#!/usr/bin/env bash
# Build the collection tarball (README: `make build`) into dist/: from the git-visible files of the
# checkout, so a stray local file never ends up in it, with galaxy.yml's build_ignore applied.
# dist/cloudcompute-cloud.tar.gz is the same tarball without the version in its name
# (ee/execution-environment.yml installs that one).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$REPO/tools/bootstrap.sh" ceiling
stage_collection
mkdir -p "$REPO/dist"
tarball=$("$CEILING_VENV/bin/ansible-galaxy" collection build --force --output-path "$REPO/dist" "$STAGED_COLLECTION" |
    sed -n 's/^Created collection for .* at //p')
[ -f "$tarball" ] || die "ansible-galaxy collection build made no tarball"
cp "$tarball" "$REPO/dist/cloudcompute-cloud.tar.gz"
log "collection: $tarball"
