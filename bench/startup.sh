#!/usr/bin/env bash
# startup.sh: the start-up cost of a command-line parsing library, measured
# side by side on three programs that parse "--dir D --state working set"
# and exit: one with the standard library's flag package (the floor), one
# with spf13/pflag, one with spf13/cobra, each built as "go build" does by
# default, and pflag again with CGO_ENABLED=0. Each is built in a temporary
# module and run N times; prints the median and p90 wall time in ms, and
# whether the binary is statically linked (pflag imports net, whose cgo
# resolver makes a default build dynamically linked).
#
#   bash bench/startup.sh [N]      (default N=500)
#
# Needs Go and the module proxy (the temporary module fetches pflag and cobra).
set -euo pipefail
n=${1:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init example.com/startup >/dev/null 2>&1
mkdir -p stdflag pflag cobra
cat >stdflag/main.go <<'GO'
package main

import (
	"flag"
	"os"
)

func main() {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	dir := fs.String("dir", "", "")
	state := fs.String("state", "", "")
	fs.Parse(os.Args[1:])
	if *dir == "" || *state == "" {
		os.Exit(1)
	}
}
GO
cat >pflag/main.go <<'GO'
package main

import (
	"os"

	"github.com/spf13/pflag"
)

func main() {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	dir := fs.String("dir", "", "")
	state := fs.String("state", "", "")
	fs.Parse(os.Args[1:])
	if *dir == "" || *state == "" || fs.Arg(0) != "set" {
		os.Exit(1)
	}
}
GO
cat >cobra/main.go <<'GO'
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	var dir, state string
	root := &cobra.Command{Use: "x"}
	root.PersistentFlags().StringVar(&dir, "dir", "", "")
	root.PersistentFlags().StringVar(&state, "state", "", "")
	root.AddCommand(&cobra.Command{Use: "set", Run: func(*cobra.Command, []string) {}})
	if err := root.Execute(); err != nil || dir == "" || state == "" {
		os.Exit(1)
	}
}
GO
go get github.com/spf13/pflag github.com/spf13/cobra >/dev/null 2>&1
for p in stdflag pflag cobra; do
	go build -o "bin/$p" "./$p"
done
CGO_ENABLED=0 go build -o bin/pflag-static ./pflag
for p in stdflag pflag pflag-static cobra; do
	printf '%-13s %8d bytes  %s\n' "$p" "$(wc -c <"bin/$p")" "$(file -b "bin/$p" 2>/dev/null | grep -o 'dynamically linked\|statically linked')"
done

time_runs() {
	local name=$1; shift
	local i t0 t1
	: >times
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$@" >/dev/null
		t1=$EPOCHREALTIME
		echo "$t0 $t1" >>times
	done
	awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' times | sort -n | awk -v name="$name" '{ d[NR] = $1 } END {
		printf "%-13s median %6.3f ms   p90 %6.3f ms   (%d runs)\n", name, d[int((NR + 1) / 2)], d[int(NR * 0.9)], NR }'
}
# Interleaved rounds, so that a change in the machine's load hits all three.
for round in 1 2 3; do
	for p in stdflag pflag pflag-static cobra; do
		time_runs "$p" "bin/$p" --dir d --state working set
	done
done
