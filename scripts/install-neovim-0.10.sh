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
command -v patchelf >/dev/null || { echo "install-neovim-0.10: patchelf is needed (apt-get install patchelf)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb http://deb.debian.org/debian $SUITE main" > "$work/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
  -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root
)
apt-get "${apt_opts[@]}" update -qq
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "${PACKAGES[@]}" >/dev/null)

rm -rf "$DEST.partial"
mkdir -p "$DEST.partial/root" "$DEST.partial/bin"
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$DEST.partial/root"; done
lib="$DEST/root/usr/lib/x86_64-linux-gnu"
# Patched in place (paths of the final folder), so the runtime is found next to the binary;
# a symlink in bin/ keeps the name `nvim`. Running it through the loader instead breaks the TUI.
patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --set-rpath "$lib" "$DEST.partial/root/usr/bin/nvim"
ln -s ../root/usr/bin/nvim "$DEST.partial/bin/nvim"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
"$DEST/bin/nvim" --version | head -1
