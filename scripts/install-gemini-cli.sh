#!/usr/bin/env bash
# Installs the pinned Gemini CLI (the peer the interop tests run against) into
# .tools/gemini-cli, outside the workspaces, so `npm install` stays light.
set -euo pipefail
VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${GEMINI_CLI_DIR:-$ROOT/.tools/gemini-cli}"
if [ -f "$DEST/node_modules/@google/gemini-cli/package.json" ] && \
   grep -q "\"version\": \"$VERSION\"" "$DEST/node_modules/@google/gemini-cli/package.json"; then
  echo "Gemini CLI $VERSION already in $DEST"
  exit 0
fi
mkdir -p "$DEST"
cd "$DEST"
[ -f package.json ] || echo '{"name":"gemini-cli-pinned","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error "@google/gemini-cli@$VERSION" "@google/gemini-cli-core@$VERSION"
echo "Gemini CLI $VERSION installed in $DEST"
