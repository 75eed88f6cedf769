// Package testhook lets tests stop the toolkit between two steps of an
// operation, to reproduce a race deterministically instead of by luck, or
// to simulate a file system that blocks (a frozen one). In production no
// hook is set and [At] costs one atomic load.
package testhook

import "sync/atomic"

// Points at which [At] is called.
const (
	// PublishHomeOpened: a publisher has opened and checked the config
	// home, and is about to open the status directory inside it.
	PublishHomeOpened = "publish-home-opened"
	// PublishWrite: a publisher is about to write a temporary file's
	// content (blocking here simulates a frozen file system).
	PublishWrite = "publish-write"
	// RemoveJudged: a file was judged removable and is about to be
	// removed.
	RemoveJudged = "remove-judged"
	// RemoveMoved: a judged file was moved aside and is about to be
	// verified.
	RemoveMoved = "remove-moved"
	// UpdateIssued: a hook command has stamped its update and is about to
	// wait for the session's lock.
	UpdateIssued = "update-issued"
	// SettingsChecked: an agent's settings file was looked at (not a link,
	// a regular file) and is about to be opened.
	SettingsChecked = "settings-checked"
	// InstallApply: statuspub install is about to replace an agent's
	// settings file (blocking here simulates a frozen file system).
	InstallApply = "install-apply"
)

var hook atomic.Pointer[func(point, name string)]

// Set installs f, called with the point and the file name concerned,
// until the returned function is called. Tests only.
func Set(f func(point, name string)) (restore func()) {
	old := hook.Swap(&f)
	return func() { hook.Store(old) }
}

// At calls the installed hook, if any.
func At(point, name string) {
	if f := hook.Load(); f != nil {
		(*f)(point, name)
	}
}
