module github.com/agentstatus/agentstatus

go 1.25.0

require github.com/rivo/uniseg v0.4.7

require golang.org/x/sys v0.47.0
