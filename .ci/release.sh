#!/bin/sh
# The release routes, taken as a user takes them (docs/release.md):
#   1. a snapshot release of the current commit with GoReleaser (pinned):
#      every command for linux, darwin, windows, freebsd x amd64, arm64,
#      the archives, .deb/.rpm/.apk, checksums.txt, the Homebrew cask and
#      the npm packages; nothing is published, all of it stays in dist/;
#   2. the same commit built again from another checkout: the binaries
#      must be byte-identical;
#   3. each route installed into a throwaway place, then statusls demo,
#      statusls --version and statuspub --version run from it: the linux
#      archive, the .deb (dpkg --install and --remove), the npm packages
#      (npm pack, npm install -g --prefix TMP);
#   4. lintian on the .deb (no error), the cask's checksums against the
#      archives.
# A route whose tool is missing (npm, dpkg, lintian) is skipped with a
# message, or fails with AGENTSTATUS_REQUIRE_TOOLS=1 (CI).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)

goreleaser_version=v2.15.1
require=${AGENTSTATUS_REQUIRE_TOOLS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

say() { echo "release: $*"; }
fail() {
	echo "release: FAIL: $*" >&2
	exit 1
}
# missing TOOL ROUTE: a route that cannot be taken on this machine.
missing() {
	[ -z "$require" ] || fail "$2 needs $1, which is missing (AGENTSTATUS_REQUIRE_TOOLS=1)"
	say "skip $2: no $1 on this machine"
}
have() { command -v "$1" >/dev/null 2>&1; }
sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# lintian comes from apt when missing (CI runs as root).
if ! have lintian && { [ "$(id -u)" -eq 0 ] || [ -n "$require" ]; }; then
	say "installing lintian"
	sudo_ apt-get update -qq
	DEBIAN_FRONTEND=noninteractive sudo_ apt-get install -y -qq --no-install-recommends lintian >/dev/null
fi

# GoReleaser from the Go module proxy, installed once into GOPATH/bin and
# reused.
goreleaser=$(go env GOPATH)/bin/goreleaser
if ! "$goreleaser" --version 2>/dev/null | grep -q "${goreleaser_version#v}"; then
	say "installing goreleaser $goreleaser_version"
	go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version"
fi

# GoReleaser reads the commit through git and gives up on it ("none") in
# a checkout with no remote: give it the project's URL through the
# environment, leaving the repository's config alone.
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/agentstatus/agentstatus.git
fi

# run_goreleaser LOG ARGS...: runs it quietly; on failure prints its log,
# whose last lines name the target that failed.
run_goreleaser() {
	log=$1
	shift
	if ! "$goreleaser" "$@" >"$log" 2>&1; then
		grep -E 'error|failed|target' "$log" | tail -20 >&2 || tail -40 "$log" >&2
		fail "goreleaser $*: see the lines above for the platform that failed"
	fi
}

# --- 1. the snapshot
t0=$(date +%s)
run_goreleaser "$tmp/release.log" release --snapshot --clean
t1=$(date +%s)
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
commit=$(git rev-parse HEAD)
short=$(echo "$commit" | cut -c1-7)
say "snapshot $version of $short built in $((t1 - t0)) s"

# Every command for every platform: a target missing from the build is
# named.
targets="linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64 freebsd_amd64 freebsd_arm64"
commands="statusls statusls-jq statuspub statuspub-install statusconform"
for target in $targets; do
	for cmd in $commands; do
		ext=""
		[ "${target%_*}" = windows ] && ext=.exe
		set -- dist/"${cmd}"_"${target}"*/"$cmd$ext"
		[ -f "$1" ] || fail "no $cmd for $target in dist/"
	done
done
say "40 binaries: $commands for $targets"

(cd dist && sha256sum -c --quiet checksums.txt) || fail "dist/checksums.txt does not match the artifacts"
say "checksums.txt: $(wc -l <dist/checksums.txt) artifacts verified"
say "artifact sizes (bytes):"
(cd dist && ls -l -- *.tar.gz *.zip *.deb *.rpm *.apk) | awk '{ printf "release:   %10d  %s\n", $5, $NF }'

# check_installed DIR ROUTE: the installed statusls and statuspub name
# the snapshot's version and commit, and statusls demo runs.
check_installed() {
	for cmd in statusls statuspub; do
		got=$("$1/$cmd" --version) || fail "$2: $cmd --version failed"
		case $got in
		"$cmd $version (commit $short, "*) ;;
		*) fail "$2: $cmd --version says \"$got\", want \"$cmd $version (commit $short, DATE)\"" ;;
		esac
	done
	HOME=$tmp/home "$1/statusls" demo >"$tmp/demo.out" 2>&1 || {
		cat "$tmp/demo.out"
		fail "$2: statusls demo failed"
	}
	grep -q . "$tmp/demo.out" || fail "$2: statusls demo printed nothing"
	say "$2: $got; statusls demo listed $(grep -c . "$tmp/demo.out") lines"
}
mkdir -p "$tmp/home"

case $(uname -m) in
x86_64 | amd64) arch=amd64 npmcpu=x64 apkarch=x86_64 ;;
aarch64 | arm64) arch=arm64 npmcpu=arm64 apkarch=aarch64 ;;
*) fail "no release build for $(uname -m)" ;;
esac

# --- 3a. the archive
mkdir "$tmp/archive"
tar -xzf "dist/agentstatus_${version}_linux_$arch.tar.gz" -C "$tmp/archive"
for f in LICENSE README.md man/statusls.1 completions/statusls.bash completions/_statusls completions/statusls.fish; do
	[ -f "$tmp/archive/$f" ] || fail "archive: no $f"
done
check_installed "$tmp/archive" "archive (linux $arch)"

# --- 3b. the .deb, through dpkg into a throwaway root: dpkg unpacks,
# configures and removes it as it would in /, without touching the
# machine's own /usr/bin.
deb=$(ls dist/agentstatus_*_"$arch".deb)
if have dpkg; then
	droot=$tmp/debroot
	mkdir -p "$droot/var/lib/dpkg/updates" "$droot/var/lib/dpkg/info"
	: >"$droot/var/lib/dpkg/status"
	# dpkg wants ldconfig and start-stop-daemon on PATH, which sbin holds.
	dpkg_() { PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" dpkg --root="$droot" --force-not-root --force-script-chrootless "$@"; }
	dpkg_ --install "$deb" >"$tmp/dpkg.log" 2>&1 || {
		cat "$tmp/dpkg.log"
		fail "dpkg --install $deb"
	}
	dpkg_ --status agentstatus | grep -q '^Status: install ok installed' || fail ".deb: dpkg does not list agentstatus as installed"
	for f in usr/bin/statusls usr/bin/statuspub usr/bin/statusls-jq usr/bin/statuspub-install usr/bin/statusconform \
		usr/share/man/man1/statusls.1.gz usr/share/bash-completion/completions/statusls \
		usr/share/zsh/vendor-completions/_statusls usr/share/fish/vendor_completions.d/statusls.fish \
		usr/share/doc/agentstatus/copyright; do
		[ -f "$droot/$f" ] || fail ".deb: no /$f after dpkg --install"
	done
	check_installed "$droot/usr/bin" ".deb (dpkg --install)"
	dpkg_ --remove agentstatus >"$tmp/dpkg.log" 2>&1 || {
		cat "$tmp/dpkg.log"
		fail "dpkg --remove agentstatus"
	}
	[ ! -e "$droot/usr/bin/statusls" ] || fail ".deb: /usr/bin/statusls left after dpkg --remove"
	say ".deb: dpkg --remove took every file away"
else
	missing dpkg ".deb install"
fi

# --- 4a. lintian
if have lintian; then
	lintian --fail-on error --no-tag-display-limit "$deb" >"$tmp/lintian.log" 2>&1 || {
		cat "$tmp/lintian.log"
		fail "lintian reports errors on $deb"
	}
	say "lintian: no error on ${deb#dist/} ($(grep -c '^W:' "$tmp/lintian.log" || true) warnings)"
	sed 's/^/release:   /' "$tmp/lintian.log"
else
	missing lintian "the .deb's lintian check"
fi

# Other packages: what they hold, read without their package managers.
for pkg in dist/agentstatus_*_"$apkarch".apk; do
	tar -tzf "$pkg" 2>/dev/null | grep -q '^usr/bin/statusls$' || fail "$pkg: no usr/bin/statusls"
done
say ".apk holds usr/bin/statusls; .rpm: $(ls dist/*.rpm | wc -l) built (not installed: no rpm here)"

# --- 3c. npm: the packages, packed and installed as npm install -g does.
if have npm && have node; then
	node packaging/npm/generate.mjs dist
	mkdir -p "$tmp/npm"
	for d in dist/npm/*/; do
		(cd "$d" && npm pack --silent --pack-destination "$tmp/npm" >/dev/null)
	done
	say "npm pack: $(ls "$tmp/npm" | tr '\n' ' ')"
	top=$tmp/npm/agentstatus-$version.tgz
	plat=$tmp/npm/agentstatus-linux-$npmcpu-$version.tgz
	[ -f "$top" ] && [ -f "$plat" ] || fail "npm: no $top or $plat"
	# Offline: the platform package comes from its tarball, not from a
	# registry where this snapshot is not.
	npm install -g --prefix "$tmp/npm-prefix" --offline --no-audit --no-fund --loglevel=error "$top" "$plat" >"$tmp/npm.log" 2>&1 || {
		cat "$tmp/npm.log"
		fail "npm install -g --prefix TMP of the packed tarballs"
	}
	check_installed "$tmp/npm-prefix/bin" "npm install -g"
	# The hooks name npm's global bin, which outlives updates.
	HOME=$tmp/home "$tmp/npm-prefix/bin/statuspub" install claude >/dev/null
	grep -q "\"$tmp/npm-prefix/bin/statuspub claude-hook\"" "$tmp/home/.claude/settings.json" ||
		fail "npm install -g: statuspub install claude does not write $tmp/npm-prefix/bin/statuspub into the hooks"
	say "npm install -g: statuspub install claude writes $tmp/npm-prefix/bin/statuspub into the hooks"
	# npx, from the same tarballs: agentstatus runs each command, and
	# statuspub install refuses to write npx's cache into hooks.
	npx_() {
		HOME=$tmp/home npm exec --offline --yes --no-update-notifier --loglevel=error \
			--package="$top" --package="$plat" -- agentstatus "$@"
	}
	npx_ statusls demo >"$tmp/npx.out" 2>&1 && grep -q demo "$tmp/npx.out" || {
		cat "$tmp/npx.out"
		fail "npx agentstatus statusls demo"
	}
	if npx_ statuspub install codex >"$tmp/npx.out" 2>&1 || ! grep -q "npx's temporary cache" "$tmp/npx.out"; then
		cat "$tmp/npx.out"
		fail "npx agentstatus statuspub install codex: not refused"
	fi
	say "npx agentstatus statusls demo runs; statuspub install from npx's cache is refused: $(tail -1 "$tmp/npx.out")"
else
	missing npm "npm install"
fi

# --- 4b. the cask's URLs and checksums against the archives
cask=dist/homebrew/Casks/agentstatus.rb
[ -f "$cask" ] || fail "no $cask"
n=0
awk -F'"' '/^ *url "/ { u = $2 } /^ *sha256 "/ { print u, $2 }' "$cask" >"$tmp/cask.sums"
# The cask names its archives through Ruby's #{version}: the cask's own.
cask_version=$(sed -n 's/^ *version "\(.*\)"$/\1/p' "$cask" | head -n 1)
while read -r url want; do
	url=$(printf '%s\n' "$url" | sed "s/#{version}/$cask_version/g")
	name=${url##*/}
	case $url in
	"https://github.com/agentstatus/agentstatus/releases/download/"*"/$name") ;;
	*) fail "cask: $url is not this release's download URL" ;;
	esac
	[ -f "dist/$name" ] || fail "cask: $name is no archive in dist/"
	got=$(sha256sum "dist/$name" | cut -d' ' -f1)
	[ "$want" = "$got" ] || fail "cask: sha256 of $name is $want in the cask, $got in dist/"
	grep -q "^$got  $name\$" dist/checksums.txt || fail "cask: $name is not in checksums.txt as $got"
	n=$((n + 1))
done <"$tmp/cask.sums"
[ "$n" -eq 4 ] || fail "cask: $n archives, want 4 (darwin and linux, amd64 and arm64)"
say "cask: the 4 URLs' sha256 match the archives and checksums.txt"

# --- 2. reproducible: the same commit from a fresh clone elsewhere (a
# tree with changes is built again in place), binary by binary.
mv dist "$tmp/dist1"
if [ -z "$(git status --porcelain)" ]; then
	git clone -q --no-checkout "$root" "$tmp/src"
	git -C "$tmp/src" checkout -q "$commit"
	src=$tmp/src
else
	say "the tree has changes: the second build runs in place"
	src=$root
fi
t0=$(date +%s)
(cd "$src" && run_goreleaser "$tmp/build.log" build --snapshot --clean)
t1=$(date +%s)
(cd "$tmp/dist1" && find . -type f \( -name 'status*' \) -path './status*_*/*' | sort | xargs sha256sum) >"$tmp/sums1"
(cd "$src/dist" && find . -type f \( -name 'status*' \) -path './status*_*/*' | sort | xargs sha256sum) >"$tmp/sums2"
[ "$src" = "$root" ] && rm -rf dist
mv "$tmp/dist1" dist
if ! diff "$tmp/sums1" "$tmp/sums2"; then
	fail "two builds of $short differ (lines above: first <, second >)"
fi
say "reproducible: $(wc -l <"$tmp/sums1") binaries byte-identical in a second build from $src ($((t1 - t0)) s)"
say "every route passed; artifacts in dist/"
