#!/usr/bin/env bash
# Installs code-server (a real VS Code server, from npm) into .tools/code-server,
# outside the workspaces, for the VS Code extension's tests. Pinned: 4.100.3 is
# VS Code 1.100, the newest code-server that runs on Node 20.
#
# Needs (apt): libkrb5-dev (its kerberos module builds from source) and ripgrep.
# @vscode/ripgrep's install script downloads rg from GitHub; instead we seed the
# download cache it reads first with Debian's `rg`, so the install is offline
# for that step and does not depend on GitHub's rate limits.
set -euo pipefail
VERSION="${CODE_SERVER_VERSION:-4.100.3}"
# What code-server 4.100.3's lib/vscode/npm-shrinkwrap.json pins, and the rg
# release that @vscode/ripgrep version downloads (lib/postinstall.js VERSION).
VSCODE_RIPGREP_VERSION="1.15.11"
RIPGREP_ASSET_VERSION="v13.0.0-10"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CODE_SERVER_DIR:-$ROOT/.tools/code-server}"
PKG="$DEST/node_modules/code-server"
. "$ROOT/scripts/pinned-npm.sh"

if installed_at "$DEST" code-server "$VERSION" && [ -e "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]; then
  echo "code-server $VERSION already in $DEST"
  exit 0
fi

RG="$(command -v rg || true)"
if [ -z "$RG" ]; then
  echo "install-code-server: ripgrep (rg) is required: apt-get install -y ripgrep" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64) RG_TARGET=x86_64-unknown-linux-musl ;;
  aarch64) RG_TARGET=aarch64-unknown-linux-musl ;;
  *) echo "install-code-server: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac

# A private TMPDIR: the seeded cache lives only for this install.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CACHE="$WORK/vscode-ripgrep-cache-$VSCODE_RIPGREP_VERSION"
mkdir -p "$CACHE" "$WORK/rg"
cp "$RG" "$WORK/rg/rg"
tar czf "$CACHE/ripgrep-$RIPGREP_ASSET_VERSION-$RG_TARGET.tar.gz" -C "$WORK/rg" rg

# argon2 (here) and lib/vscode's native modules build against this Node's own headers, not downloaded ones.
use_node_headers

# Scripts are skipped first so the pinned ripgrep can be checked before code-server's
# postinstall (npm install in lib/vscode) runs.
npm_into "$DEST" code-server --ignore-scripts "code-server@$VERSION"
if ! grep -q "\"node_modules/@vscode/ripgrep\": {" "$PKG/lib/vscode/npm-shrinkwrap.json" || \
   ! grep -A1 "\"node_modules/@vscode/ripgrep\": {" "$PKG/lib/vscode/npm-shrinkwrap.json" | grep -q "\"version\": \"$VSCODE_RIPGREP_VERSION\""; then
  echo "install-code-server: code-server $VERSION does not pin @vscode/ripgrep $VSCODE_RIPGREP_VERSION; update this script" >&2
  exit 1
fi
# Root needs unsafe-perm for code-server's postinstall; npm 11 runs it (with a warning).
TMPDIR="$WORK" npm_config_unsafe_perm=true npm_config_yes=true npm rebuild --no-audit --no-fund --loglevel=error
test -e "$PKG/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
echo "code-server $VERSION installed in $DEST"
