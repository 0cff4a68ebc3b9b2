#!/usr/bin/env bash
# Installs Neovim 0.10 (Debian 13's build: what most users run is 0.9 or newer)
# into .tools/nvim-0.10 for the Neovim test matrix; CI runs the tests on it and
# on the system's 0.7.2. The packages come from the Debian registry through a
# private apt state (sources, lists, caches under a temp dir): the system's apt
# setup is neither read for sources nor changed. Idempotent.
#   bin/nvim       the binary, patched (patchelf) to load its own libc and libraries
#   root/          the unpacked packages; bin/nvim finds root/usr/share/nvim/runtime itself
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${NEOVIM_010_DIR:-$ROOT/.tools/nvim-0.10}"
SUITE="${NEOVIM_010_SUITE:-trixie}"
PACKAGES=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2
  libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)

if [ -x "$DEST/bin/nvim" ] && "$DEST/bin/nvim" --headless --clean -es +'lua io.write(vim.version().minor)' +q 2>/dev/null | grep -qx 10; then
  echo "Neovim 0.10 already in $DEST"
  exit 0
fi
# shellcheck source=unpack-debs.sh
. "$ROOT/scripts/unpack-debs.sh"
unpack_debs "$SUITE" "$DEST" "${PACKAGES[@]}"
lib="$DEST/root/usr/lib/x86_64-linux-gnu"
# Patched in place (paths of the final folder), so the runtime is found next to the binary;
# a symlink in bin/ keeps the name `nvim`. Running it through the loader instead breaks the TUI.
patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$DEST.partial/root/usr/bin/nvim"
ln -s ../root/usr/bin/nvim "$DEST.partial/bin/nvim"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
"$DEST/bin/nvim" --version | head -1
