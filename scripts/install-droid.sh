#!/usr/bin/env bash
# Installs the pinned Factory Droid CLI (an agent the interop tests run against, issue 36) into
# .tools/droid. Proprietary: installed for the tests, never committed. Its npm package @factory/cli
# is a Node launcher whose optional dependency per platform carries the binary (Bun-compiled); the
# binary is all a test needs, so only the platform package is installed, as for Claude Code.
# The launcher's 0.225.1 names a platform package 0.225.1 that the registry does not hold (its
# platform packages went from 0.215.0 to 0.225.2), so the pin is the binary's: 0.225.2.
set -euo pipefail
VERSION="${DROID_VERSION:-0.225.2}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${DROID_DIR:-$ROOT/.tools/droid}"
. "$ROOT/scripts/pinned-npm.sh"
PLATFORM="$(npm_platform "Factory Droid")"
PKG="@factory/cli-$PLATFORM"
BIN="$DEST/node_modules/$PKG/bin/droid"
if installed_at "$DEST" "$PKG" "$VERSION" && [ -x "$BIN" ]; then
  echo "Factory Droid $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" droid --ignore-scripts "$PKG@$VERSION"
ln -sf "node_modules/$PKG/bin/droid" "$DEST/droid"
echo "Factory Droid $("$DEST/droid" --version) installed in $DEST"
