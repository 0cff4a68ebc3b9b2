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
