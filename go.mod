module github.com/agentstatus/agentstatus

go 1.25.0

require github.com/rivo/uniseg v0.4.7

require (
	github.com/itchyny/gojq v0.12.20
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.47.0
)

require (
	github.com/BurntSushi/toml v1.5.0
	github.com/google/renameio/v2 v2.0.2
	golang.org/x/term v0.45.0
)

require golang.org/x/tools v0.26.0 // indirect

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	go.uber.org/goleak v1.3.0
)
