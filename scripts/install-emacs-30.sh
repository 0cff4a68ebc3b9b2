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
unpack_debs "$SUITE" "$DEST" "${PACKAGES[@]}"
lib="$DEST/root/usr/lib/x86_64-linux-gnu"
# Patched in place (paths of the final folder). An RPATH, not a RUNPATH: the libraries' own
# dependencies (gnutls's, libxml2's) must come from there too.
for exe in emacs-nox emacsclient.emacs; do
  patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$DEST.partial/root/usr/bin/$exe"
done
share="$DEST/root/usr/share/emacs/30.1"
libexec="$DEST/root/usr/libexec/emacs/30.1/x86_64-linux-gnu"
dump="$(basename "$(ls "$DEST.partial/root/usr/libexec/emacs/30.1/x86_64-linux-gnu/"emacs-*.pdmp)")"
# Run from root/usr/bin (the dump finds the preloaded native code relative to it), with the
# paths Debian compiled in moved under root/. Native compilation stays off: Debian's needs
# gcc 14's toolchain (libgcc-14-dev, binutils), which is not unpacked here; it would compile
# ediff, term and the rest in every test's Emacs, and a trampoline for each primitive a test
# redefines (cl-letf of `message').
cat > "$DEST.partial/bin/emacs" <<EOF
#!/bin/sh
EMACSLOADPATH="$share/site-lisp:$share/lisp" EMACSDATA="$share/etc" EMACSDOC="$share/etc" EMACSPATH="$libexec" \\
  exec "$DEST/root/usr/bin/emacs-nox" --dump-file="$libexec/$dump" \\
  --eval '(setq native-comp-jit-compilation nil native-comp-enable-subr-trampolines nil)' "\$@"
EOF
printf '#!/bin/sh\nexec "%s" "$@"\n' "$DEST/root/usr/bin/emacsclient.emacs" > "$DEST.partial/bin/emacsclient"
chmod +x "$DEST.partial/bin/emacs" "$DEST.partial/bin/emacsclient"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
"$DEST/bin/emacs" --version | head -1
