#!/usr/bin/env bash
# Installs the pinned Claude Code (an agent the interop tests run against, issue 19) into
# .tools/claude-code. Claude Code is proprietary: it is installed here for the tests, never
# committed. Its npm package is a launcher whose postinstall links the platform's native
# binary; the binary is all a test needs, so only the platform package is installed.
set -euo pipefail
VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CLAUDE_CODE_DIR:-$ROOT/.tools/claude-code}"
. "$ROOT/scripts/pinned-npm.sh"
PLATFORM="$(npm_platform "Claude Code")"
PKG="@anthropic-ai/claude-code-$PLATFORM"
BIN="$DEST/node_modules/$PKG/claude"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$VERSION "; then
  echo "Claude Code $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" claude-code --ignore-scripts "$PKG@$VERSION"
ln -sf "node_modules/$PKG/claude" "$DEST/claude"
echo "Claude Code $("$DEST/claude" --version) installed in $DEST"
