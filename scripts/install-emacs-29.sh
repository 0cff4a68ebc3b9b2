#!/usr/bin/env bash
# Installs Emacs 29.3 into .tools/emacs-29 for the Emacs test matrix: the install form must
# work on every Emacs the package supports, 27 to 30 (issue 39), and no Debian suite has 29
# (bullseye 27.1, bookworm 28.2, bookworm-backports and trixie 30.1). Ubuntu 24.04's archive
# (noble) has it: its packages are fetched through the private apt state of unpack-debs.sh,
# their signatures checked with Ubuntu's archive key, which comes from Debian's own
# ubuntu-keyring package (trixie). The binary is linked against noble's libc, so it is
# patched (patchelf) to load the unpacked libc and libraries, as install-emacs-30.sh does.
# Idempotent.
#   bin/emacs, bin/emacsclient  wrappers that point Emacs at its own lisp, etc/ and dump file
#   root/                       the unpacked packages
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${EMACS_29_DIR:-$ROOT/.tools/emacs-29}"
SUITE="${EMACS_29_SUITE:-noble}"
# emacs-nox's libraries and theirs (noble's names), all from the suite.
PACKAGES=(emacs-nox emacs-bin-common emacs-common libc6 libgcc-s1 libstdc++6 libacl1 libattr1 libasound2t64 libcap2
  libdbus-1-3 libffi8 libgccjit0 libgcrypt20 libgmp10 libgnutls30t64 libgpg-error0 libgpm2 libhogweed6t64 libicu74
  libidn2-0 libisl23 libjansson4 liblcms2-2 liblz4-1 liblzma5 libmpc3 libmpfr6 libnettle8t64 libp11-kit0 libpcre2-8-0
  libselinux1 libsqlite3-0 libsystemd0 libtasn1-6 libtinfo6 libtree-sitter0 libunistring5 libxml2 libzstd1 zlib1g)

if [ -x "$DEST/bin/emacs" ] && "$DEST/bin/emacs" --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null | grep -qx 29; then
  echo "Emacs 29 already in $DEST"
  exit 0
fi
# shellcheck source=unpack-debs.sh
. "$ROOT/scripts/unpack-debs.sh"
# shellcheck source=unpacked-emacs.sh
. "$ROOT/scripts/unpacked-emacs.sh"
keys="$DEST.keyring"
trap 'rm -rf "$keys" "$keys.partial"' EXIT
unpack_debs trixie "$keys" ubuntu-keyring/trixie
UNPACK_DEBS_SOURCE="deb [signed-by=$keys.partial/root/usr/share/keyrings/ubuntu-archive-keyring.gpg] http://archive.ubuntu.com/ubuntu $SUITE main universe" \
  unpack_debs "$SUITE" "$DEST" "${PACKAGES[@]}"
finish_unpacked_emacs "$DEST" 29.3
