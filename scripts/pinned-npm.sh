# Sourced by the install-*.sh scripts: a pinned npm package installed into a
# folder of its own under .tools (outside the workspaces, so `npm install`
# stays light), and the check that it already is.

# installed_at DEST PACKAGE VERSION: DEST holds PACKAGE at VERSION.
installed_at() {
  local pkg="$1/node_modules/$2/package.json"
  [ -f "$pkg" ] && grep -q "\"version\": \"$3\"" "$pkg"
}

# npm_into DEST NAME NPM-ARGS...: npm install NPM-ARGS in DEST (a private package.json named NAME-pinned), then stays in DEST.
npm_into() {
  local dest="$1" name="$2"
  shift 2
  mkdir -p "$dest"
  cd "$dest"
  [ -f package.json ] || echo "{\"name\":\"$name-pinned\",\"private\":true}" > package.json
  npm install --no-audit --no-fund --loglevel=error "$@"
}

# use_node_headers: native modules (node-gyp) build against the headers of the Node running this, which it
# ships beside its binary (include/node, as the official and NodeSource builds do): npm's nodedir names them.
# Otherwise node-gyp downloads them from nodejs.org, which fails offline; it worked only where a ~/.npmrc set
# nodedir (a clean HOME, as CI's, has none). An npm_config_nodedir already set is kept.
use_node_headers() {
  [ -n "${npm_config_nodedir:-}" ] && return 0
  local prefix
  prefix="$(dirname "$(dirname "$(node -p process.execPath)")")"
  if [ -e "$prefix/include/node/common.gypi" ]; then
    export npm_config_nodedir="$prefix"
  else
    echo "note: no Node headers in $prefix/include/node: node-gyp will download them" >&2
  fi
}

# npm_platform NAME: the npm platform suffix of this machine (linux-x64, darwin-arm64...) for a native
# binary package; none: says NAME has no build here and exits.
npm_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo linux-x64 ;;
    Linux-aarch64) echo linux-arm64 ;;
    Darwin-arm64) echo darwin-arm64 ;;
    Darwin-x86_64) echo darwin-x64 ;;
    *) echo "no $1 build for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
}
