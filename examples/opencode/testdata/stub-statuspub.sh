#!/bin/sh
# A stand-in statuspub for examples/opencode_test.go: records how it was
# started and every line it reads, and answers each as `statuspub serve`
# does.
echo "$$ $*" >>"$STUB_LOG.spawns"
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$STUB_LOG.lines"
	echo '{"ok":true}'
done
echo "eof" >>"$STUB_LOG.spawns"
