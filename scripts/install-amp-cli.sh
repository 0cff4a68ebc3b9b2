#!/usr/bin/env bash
# Installs the pinned Amp CLI (`@ampcode/cli`, issue 31) into .tools/amp-cli: a wrapper whose
# postinstall links the platform's compiled binary (@ampcode/cli-linux-x64). Proprietary:
# installed on demand, never committed. Not run by .ci/run: `amp` cannot start without its
# service (ampcode.com, or AMP_URL: it asks getUserInfo, loadPlugins, loadSkills and
# listAgentModes first, and has no custom model provider), so it never reaches an IDE offline;
# Amp's face is tested at the wire (packages/server/test/ampFace.test.ts, docs/agents.md).
set -euo pipefail
VERSION="${AMP_CLI_VERSION:-0.0.1790142911-g7618fb}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${AMP_CLI_DIR:-$ROOT/.tools/amp-cli}"
. "$ROOT/scripts/pinned-npm.sh"
if installed_at "$DEST" @ampcode/cli "$VERSION" && [ -x "$DEST/node_modules/.bin/amp" ]; then
  echo "Amp CLI $VERSION already in $DEST"
  exit 0
fi
npm_into "$DEST" amp-cli "@ampcode/cli@$VERSION"
echo "Amp CLI $VERSION installed in $DEST"
