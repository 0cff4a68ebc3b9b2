#!/usr/bin/env bash
# Installs the pinned codex-acp (Zed's ACP adapter for Codex, issue 38) into .tools/codex-acp;
# never committed. Its npm package is a Node launcher whose native binary (codex-rs built in)
# comes in a platform package, an optional dependency: npm installs this machine's only. The
# tests run the binary offline against a Responses API mock of ours on loopback, named as a
# custom model provider in a private CODEX_HOME (no sign-in: it asks for one only with the
# `openai` provider).
set -euo pipefail
VERSION="${CODEX_ACP_VERSION:-0.16.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CODEX_ACP_DIR:-$ROOT/.tools/codex-acp}"
. "$ROOT/scripts/pinned-npm.sh"
PLATFORM="$(npm_platform codex-acp)"
if installed_at "$DEST" @zed-industries/codex-acp "$VERSION" && installed_at "$DEST" "@zed-industries/codex-acp-$PLATFORM" "$VERSION"; then
  echo "codex-acp $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" codex-acp "@zed-industries/codex-acp@$VERSION"
# The platform package is optional to npm: a missing one would leave a launcher that cannot run.
installed_at "$DEST" "@zed-industries/codex-acp-$PLATFORM" "$VERSION" || { echo "codex-acp: no @zed-industries/codex-acp-$PLATFORM $VERSION installed" >&2; exit 1; }
echo "codex-acp $VERSION installed in $DEST"
