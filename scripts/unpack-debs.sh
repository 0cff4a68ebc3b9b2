# Sourced by the install-*.sh scripts that take a newer editor from another Debian suite.
# unpack_debs SUITE DEST PACKAGE...: downloads the packages from the Debian registry through
# a private apt state (sources, lists, caches under a temp dir: the system's apt setup is
# neither read for sources nor changed) and unpacks them into DEST.partial/root, with an
# empty DEST.partial/bin beside it. The caller patches the binaries, then moves DEST.partial
# to DEST. UNPACK_DEBS_SOURCE, when set, is the sources.list line instead of Debian's SUITE
# (install-emacs-29.sh: Ubuntu's archive, its key named by signed-by).
# The body runs in a subshell (its variables its own, no `local`: the trap runs after the
# function's scope), so that its trap removes the temp dir on every exit (a failed download
# too) without replacing a trap of the caller's.
unpack_debs() (
  set -euo pipefail
  suite="$1" dest="$2"
  shift 2
  command -v patchelf >/dev/null || { echo "$(basename "$0"): patchelf is needed (apt-get install patchelf)" >&2; exit 1; }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
  echo "${UNPACK_DEBS_SOURCE:-deb http://deb.debian.org/debian $suite main}" > "$work/sources.list"
  apt_opts=(
    -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
    -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root
  )
  apt-get "${apt_opts[@]}" update -qq
  (cd "$work/debs" && apt-get "${apt_opts[@]}" download "$@" >/dev/null)
  rm -rf "$dest.partial"
  mkdir -p "$dest.partial/root" "$dest.partial/bin"
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$dest.partial/root"; done
)
