# Sourced by install-emacs-29.sh and install-emacs-30.sh, after unpack_debs (unpack-debs.sh)
# put an Emacs built against another suite's libc into DEST.partial/root.
# finish_unpacked_emacs DEST VERSION: patches its binaries to load the unpacked libc and
# libraries, writes bin/emacs and bin/emacsclient wrappers that point Emacs at its own lisp,
# etc/ and dump file, moves DEST.partial to DEST and prints the version.
finish_unpacked_emacs() {
  local dest="$1" version="$2" exe
  local lib="$dest/root/usr/lib/x86_64-linux-gnu"
  # Patched in place (paths of the final folder). An RPATH, not a RUNPATH: the libraries' own
  # dependencies (gnutls's, libxml2's) must come from there too.
  for exe in emacs-nox emacsclient.emacs; do
    patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$dest.partial/root/usr/bin/$exe"
  done
  local share="$dest/root/usr/share/emacs/$version"
  local libexec="$dest/root/usr/libexec/emacs/$version/x86_64-linux-gnu"
  local dump
  dump="$(basename "$(ls "$dest.partial/root/usr/libexec/emacs/$version/x86_64-linux-gnu/"emacs-*.pdmp)")"
  # Run from root/usr/bin (the dump finds the preloaded native code relative to it), with the
  # paths Debian compiled in moved under root/. Native compilation stays off: its toolchain
  # (gcc's libgcc-dev, binutils) is not unpacked here; it would compile ediff, term and the rest
  # in every test's Emacs, and a trampoline for each primitive a test redefines (cl-letf of `message').
  cat > "$dest.partial/bin/emacs" <<WRAPPER
#!/bin/sh
EMACSLOADPATH="$share/site-lisp:$share/lisp" EMACSDATA="$share/etc" EMACSDOC="$share/etc" EMACSPATH="$libexec" \\
  exec "$dest/root/usr/bin/emacs-nox" --dump-file="$libexec/$dump" \\
  --eval '(setq native-comp-jit-compilation nil native-comp-enable-subr-trampolines nil)' "\$@"
WRAPPER
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$dest/root/usr/bin/emacsclient.emacs" > "$dest.partial/bin/emacsclient"
  chmod +x "$dest.partial/bin/emacs" "$dest.partial/bin/emacsclient"
  rm -rf "$dest"
  mv "$dest.partial" "$dest"
  "$dest/bin/emacs" --version | head -1
}
