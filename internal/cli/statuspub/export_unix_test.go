//go:build unix

package statuspub

// SingleClient is singleClient, for the external tests.
var SingleClient = singleClient
