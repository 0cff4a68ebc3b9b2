#!/usr/bin/env bash
# Installs Emacs 30 (Debian 13's emacs-nox) into .tools/emacs-30 for the Emacs
# test matrix; CI runs the Emacs tests on it and on the system's 28.2. The
# packages come from the Debian registry through a private apt state (sources,
# lists, caches under a temp dir): the system's apt setup is neither read for
# sources nor changed. Idempotent.
#   bin/emacs, bin/emacsclient  wrappers that point Emacs at its own lisp, etc/ and dump file
#   root/                       the unpacked packages; root/usr/bin/* patched (patchelf) to load
#                               their own libc and libraries
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${EMACS_30_DIR:-$ROOT/.tools/emacs-30}"
SUITE="${EMACS_30_SUITE:-trixie}"
# emacs-nox's libraries and theirs, all from the suite: the binary is linked against its libc.
PACKAGES=(emacs-nox emacs-bin-common emacs-common libc6 libgcc-s1 libacl1 libattr1 libasound2t64 libcap2 libdbus-1-3
  libffi8 libgccjit0 libgcrypt20 libgmp10 libgnutls30t64 libgpg-error0 libgpm2 libhogweed6t64 libidn2-0 libisl23
  liblcms2-2 liblz4-1 liblzma5 libmpc3 libmpfr6 libnettle8t64 libp11-kit0 libpcre2-8-0 libselinux1 libsqlite3-0
  libsystemd0 libtasn1-6 libtinfo6 libtree-sitter0.22 libunistring5 libxml2 libzstd1 zlib1g)

if [ -x "$DEST/bin/emacs" ] && "$DEST/bin/emacs" --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null | grep -qx 30; then
  echo "Emacs 30 already in $DEST"
  exit 0
fi
# shellcheck source=unpack-debs.sh
. "$ROOT/scripts/unpack-debs.sh"
# shellcheck source=unpacked-emacs.sh
. "$ROOT/scripts/unpacked-emacs.sh"
unpack_debs "$SUITE" "$DEST" "${PACKAGES[@]}"
finish_unpacked_emacs "$DEST" 30.1
