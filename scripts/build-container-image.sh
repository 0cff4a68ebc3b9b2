#!/usr/bin/env bash
# Builds the Debian image the container tests run gemini in, offline from
# Debian's packages (no registry pull): mmdebstrap minbase bookworm, imported
# into Podman as localhost/ide-companion-test:bookworm. Node and the pinned CLI
# are mounted in by the tests, as a user's image would have them installed.
# Also writes the containers.conf this machine needs (runc, cgroupfs, ulimits
# within the hard limits), which `gemini --sandbox` relies on: it calls podman itself.
set -euo pipefail
IMAGE="${IDE_COMPANION_TEST_IMAGE:-localhost/ide-companion-test:bookworm}"

if [ ! -f /etc/containers/containers.conf ] || ! grep -q 'ide-companion' /etc/containers/containers.conf; then
  mkdir -p /etc/containers
  cat > /etc/containers/containers.conf <<'CONF'
# written by ide-companion's scripts/build-container-image.sh: crun refuses this
# machine's hybrid cgroups, and the default ulimits exceed its hard limits.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
fi

if podman image exists "$IMAGE"; then
  echo "image $IMAGE already built"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# procps: gemini walks the process tree with ps; ca-certificates for nothing but
# a normal-looking image. timeout bounds a stuck mirror.
timeout 600 mmdebstrap --quiet --variant=minbase --include=procps bookworm "$work/rootfs.tar"
podman import --quiet "$work/rootfs.tar" "$IMAGE" >/dev/null
echo "image $IMAGE built"
