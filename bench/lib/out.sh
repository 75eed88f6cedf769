# Sourced, from the repository root, by the benchmarks that build their
# programs into bench/out and run them there (bench/jq.sh, memory.sh,
# metrics.sh, statusls.sh). Sets out and creates it; defines machine,
# which prints the Go version, the processors and the load the figures
# were taken under, and load, the load average alone (for a line after
# the run: a load that rose during it makes the figures suspect).
out=bench/out
mkdir -p "$out"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?; }
machine() {
	go version
	echo "cpus: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?); load: $(load)"
}
