#!/usr/bin/env bash
# Installs the pinned claude-agent-acp (Zed's ACP adapter for Claude Code, issue 38) into
# .tools/claude-agent-acp; never committed. It bundles the Claude Agent SDK, which carries
# Claude Code itself (cli.js, proprietary); the tests run it offline against an Anthropic
# Messages mock of ours on loopback (ANTHROPIC_BASE_URL and a test API key: no sign-in).
# Scripts skipped (sharp, an optional image library of the SDK, is not needed).
set -euo pipefail
VERSION="${CLAUDE_AGENT_ACP_VERSION:-0.23.1}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CLAUDE_AGENT_ACP_DIR:-$ROOT/.tools/claude-agent-acp}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @zed-industries/claude-agent-acp "$VERSION"; then
  echo "claude-agent-acp $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" claude-agent-acp --ignore-scripts --omit=optional "@zed-industries/claude-agent-acp@$VERSION"
echo "claude-agent-acp $VERSION installed in $DEST"
