#!/usr/bin/env bash
# Installs the pinned opencode (an agent the interop tests run against, issue 31) into
# .tools/opencode. `opencode-ai` is a launcher; its native binary comes in the platform
# package it names as an optional dependency (opencode-linux-x64 here), which npm installs
# beside it: no install script needs to run.
set -euo pipefail
VERSION="${OPENCODE_VERSION:-1.18.33}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${OPENCODE_DIR:-$ROOT/.tools/opencode}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" opencode-ai "$VERSION"; then
  echo "opencode $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" opencode --ignore-scripts "opencode-ai@$VERSION"
echo "opencode $VERSION installed in $DEST"
