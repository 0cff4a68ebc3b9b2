#!/usr/bin/env bash
# Installs the pinned Gemini CLI (the peer the interop tests run against) into
# .tools/gemini-cli, outside the workspaces, so `npm install` stays light.
set -euo pipefail
VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${GEMINI_CLI_DIR:-$ROOT/.tools/gemini-cli}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @google/gemini-cli "$VERSION"; then
  echo "Gemini CLI $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" gemini-cli "@google/gemini-cli@$VERSION" "@google/gemini-cli-core@$VERSION"
echo "Gemini CLI $VERSION installed in $DEST"
