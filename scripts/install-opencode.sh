#!/usr/bin/env bash
# Installs the pinned opencode (an agent the interop tests run against, issue 31) into
# .tools/opencode. `opencode-ai` is a launcher; its native binary comes in the platform
# package it names as an optional dependency (opencode-linux-x64 here), which npm installs
# beside it: no install script needs to run.
set -euo pipefail
VERSION="${OPENCODE_VERSION:-1.18.33}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${OPENCODE_DIR:-$ROOT/.tools/opencode}"
PKG="$DEST/node_modules/opencode-ai/package.json"
if [ -f "$PKG" ] && grep -q "\"version\": \"$VERSION\"" "$PKG"; then
  echo "opencode $VERSION already in $DEST"
  exit 0
fi
mkdir -p "$DEST"
cd "$DEST"
[ -f package.json ] || echo '{"name":"opencode-pinned","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error --ignore-scripts "opencode-ai@$VERSION"
echo "opencode $VERSION installed in $DEST"
