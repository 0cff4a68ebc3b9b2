#!/usr/bin/env bash
# Installs the pinned Codex CLI (an agent the interop tests run against, issue 31) into
# .tools/codex-cli; never committed. Its npm package carries a native binary per platform (an
# optional dependency); the tests run it offline against a Responses API mock of ours on loopback,
# named as a custom model provider in a private CODEX_HOME.
set -euo pipefail
VERSION="${CODEX_CLI_VERSION:-0.171.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CODEX_CLI_DIR:-$ROOT/.tools/codex-cli}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @openai/codex "$VERSION"; then
  echo "Codex CLI $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" codex-cli "@openai/codex@$VERSION"
echo "Codex CLI $VERSION installed in $DEST"
