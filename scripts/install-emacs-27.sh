#!/usr/bin/env bash
# Installs Emacs 27.1 (Debian 11's emacs-nox) into .tools/emacs-27 for the Emacs test matrix:
# the oldest Emacs the package supports (Package-Requires 27.1), the one whose init file
# must not need use-package (issue 39, trip 2). Its binary runs on this Debian 12's own
# libraries (it needs libc >= 2.29, libjansson4, libgnutls30...), so only the three emacs
# packages are unpacked, through the private apt state of unpack-debs.sh. Idempotent.
#   bin/emacs   a wrapper that points Emacs at its own lisp, etc/ and dump file
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${EMACS_27_DIR:-$ROOT/.tools/emacs-27}"
SUITE="${EMACS_27_SUITE:-bullseye}"

if [ -x "$DEST/bin/emacs" ] && "$DEST/bin/emacs" --batch -Q --eval '(princ emacs-major-version)' 2>/dev/null | grep -qx 27; then
  echo "Emacs 27 already in $DEST"
  exit 0
fi
# shellcheck source=unpack-debs.sh
. "$ROOT/scripts/unpack-debs.sh"
# "/SUITE": the older version, not the newer one this system has installed.
unpack_debs "$SUITE" "$DEST" "emacs-nox/$SUITE" "emacs-bin-common/$SUITE" "emacs-common/$SUITE"
share="$DEST/root/usr/share/emacs/27.1"
libexec="$DEST/root/usr/lib/emacs/27.1/x86_64-linux-gnu"
dump="$(basename "$(ls "$DEST.partial/root/usr/lib/emacs/27.1/x86_64-linux-gnu/"emacs*.pdmp)")"
cat > "$DEST.partial/bin/emacs" <<WRAPPER
#!/bin/sh
EMACSLOADPATH="$share/site-lisp:$share/lisp" EMACSDATA="$share/etc" EMACSDOC="$share/etc" EMACSPATH="$libexec" \\
  exec "$DEST/root/usr/bin/emacs-nox" --dump-file="$libexec/$dump" "\$@"
WRAPPER
chmod +x "$DEST.partial/bin/emacs"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
"$DEST/bin/emacs" --version | head -1
