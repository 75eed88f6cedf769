// Package opencode holds the OpenCode plugin (agentstatus.js) that
// `statuspub install opencode` writes into OpenCode's plugin directory.
package opencode

import _ "embed"

// Plugin is the plugin's source.
//
//go:embed agentstatus.js
var Plugin []byte

// FileName is the name the plugin is installed under.
const FileName = "agentstatus.js"

// Marker is a line only this plugin's source holds: an installed file
// that contains it is ours to update or remove.
const Marker = "// agentstatus: an OpenCode plugin that publishes OpenCode's state"
