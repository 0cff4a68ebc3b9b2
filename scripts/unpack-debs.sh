# Sourced by the install-*.sh scripts that take a newer editor from another Debian suite.
# unpack_debs SUITE DEST PACKAGE...: downloads the packages from the Debian registry through
# a private apt state (sources, lists, caches under a temp dir: the system's apt setup is
# neither read for sources nor changed) and unpacks them into DEST.partial/root, with an
# empty DEST.partial/bin beside it. The caller patches the binaries, then moves DEST.partial
# to DEST.
unpack_debs() {
  local suite="$1" dest="$2"
  shift 2
  command -v patchelf >/dev/null || { echo "$(basename "$0"): patchelf is needed (apt-get install patchelf)" >&2; exit 1; }
  local work
  work="$(mktemp -d)"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
  echo "deb http://deb.debian.org/debian $suite main" > "$work/sources.list"
  local apt_opts=(
    -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
    -o APT::Architecture=amd64 -o APT::Architectures=amd64 -o APT::Sandbox::User=root
  )
  apt-get "${apt_opts[@]}" update -qq
  (cd "$work/debs" && apt-get "${apt_opts[@]}" download "$@" >/dev/null)
  rm -rf "$dest.partial"
  mkdir -p "$dest.partial/root" "$dest.partial/bin"
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$dest.partial/root"; done
  rm -rf "$work"
}
