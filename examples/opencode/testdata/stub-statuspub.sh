#!/bin/sh
# A stand-in statuspub for examples/opencode_test.go: records how it was
# started and every line it reads, and answers each as `statuspub serve`
# does.
echo "$$ $*" >>"$STUB_LOG.spawns"
# Like statuspub serve, an answer to a plugin host that has exited is a
# failed write, not a SIGPIPE that ends the stand-in before "eof".
trap '' PIPE
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$STUB_LOG.lines"
	echo '{"ok":true}'
done
echo "eof" >>"$STUB_LOG.spawns"
