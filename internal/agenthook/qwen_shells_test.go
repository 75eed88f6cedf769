package agenthook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Where Qwen Code 0.24.4 keeps a session's background shells: its runtime
// directory, tmp/, the SHA-256 of the project root in hex (Storage
// getProjectTempDir, getProjectHash), background-shells/, the session id.
func TestQwenShellsPath(t *testing.T) {
	const session = "fa09e783-9a23-4fe2-ad22-62fcd85b2523"
	tests := []struct {
		name, runtime, cwd, session string
		want                        string
		ok                          bool
	}{
		// sha256("/home/user/proj")
		{"the session's directory", "/home/user/.qwen", "/home/user/proj", session,
			"/home/user/.qwen/tmp/" + "7d73bf4fdeae2f4951c4c30c31818b272a36061af1a9153e5ab4575436ffc407" + "/background-shells/" + session, true},
		{"a root that is not clean", "/home/user/.qwen/", "/home/user/proj/", session,
			"/home/user/.qwen/tmp/" + "7d73bf4fdeae2f4951c4c30c31818b272a36061af1a9153e5ab4575436ffc407" + "/background-shells/" + session, true},
		// As the harness's run made it (the hash of its project).
		{"recorded", "/tmp/TestQwenCodeHarder652538062/001/.qwen", "/tmp/TestQwenCodeHarder652538062/001/proj", "5027976e-aa93-4977-9227-9dc7536da3f2",
			"/tmp/TestQwenCodeHarder652538062/001/.qwen/tmp/e5b48e46b7acdf428c940d090ec24df370b292266e066d2e2c52e699b48a5894/background-shells/5027976e-aa93-4977-9227-9dc7536da3f2", true},
		{"a relative runtime directory", ".qwen", "/home/user/proj", session, "", false},
		{"a relative cwd", "/home/user/.qwen", "proj", session, "", false},
		{"a session id with a slash", "/home/user/.qwen", "/home/user/proj", "../x", "", false},
		{"a session id that climbs", "/home/user/.qwen", "/home/user/proj", "..", "", false},
		{"no session id", "/home/user/.qwen", "/home/user/proj", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := QwenShellsPath(tt.runtime, tt.cwd, tt.session)
			if got != tt.want || ok != tt.ok {
				t.Errorf("QwenShellsPath(%q, %q, %q) = %q, %v; want %q, %v", tt.runtime, tt.cwd, tt.session, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// The files of that directory that are a shell's state, and what each
// says. The recorded ones (testdata/qwen-shells/) are Qwen Code 0.24.4's
// own, from the harness's background shell.
func TestQwenShellStatus(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", "qwen-shells", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct {
		name, file, data string
		running          bool
		pid              int
		ok               bool
	}{
		{"running (recorded)", "shell-bg_33f5c2f1.status", read("running.status"), true, 17967, true},
		{"failed (recorded)", "shell-bg_33f5c2f1.status", read("failed.status"), false, 17967, true},
		{"completed", "shell-bg_1.status", `{"id":"bg_1","status":"completed","exitCode":0,"pid":7}`, false, 7, true},
		{"cancelled", "shell-bg_1.status", `{"id":"bg_1","status":"cancelled"}`, false, 0, true},
		{"running without a pid", "shell-bg_1.status", `{"id":"bg_1","status":"running"}`, true, 0, true},
		{"an unknown status", "shell-bg_1.status", `{"id":"bg_1","status":"paused","pid":7}`, false, 0, false},
		{"a negative pid", "shell-bg_1.status", `{"id":"bg_1","status":"running","pid":-1}`, false, 0, false},
		{"a pid no process can have", "shell-bg_1.status", `{"id":"bg_1","status":"running","pid":4294967297}`, false, 0, false},
		{"torn", "shell-bg_1.status", `{"id":"bg_1","sta`, false, 0, false},
		{"its output", "shell-bg_1.output", `{"id":"bg_1","status":"running"}`, false, 0, false},
		{"a temporary file", ".shell-bg_1.status.tmp", `{"id":"bg_1","status":"running"}`, false, 0, false},
		{"a status file without an id", "shell-.status", `{"status":"running"}`, false, 0, false},
		{"another file", "notes.status", `{"status":"running"}`, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			running, pid, ok := SourceTask(SourceQwenShells, tt.file, []byte(tt.data))
			if running != tt.running || pid != tt.pid || ok != tt.ok {
				t.Errorf("SourceTask(%q, %s) = %v, %d, %v; want %v, %d, %v", tt.file, tt.data, running, pid, ok, tt.running, tt.pid, tt.ok)
			}
			if named := SourceTaskName(SourceQwenShells, tt.file); named != (tt.ok || tt.name == "torn" || tt.name == "an unknown status" || strings.Contains(tt.name, "pid")) {
				t.Errorf("SourceTaskName(%q) = %v", tt.file, named)
			}
		})
	}
	if _, _, ok := SourceTask(SourceCopilotEvents, "shell-bg_1.status", []byte(`{"status":"running"}`)); ok {
		t.Error("another kind of source reads a shell's file")
	}
}

// Qwen Code's Stop counts its background agents, never its shells: the
// record's tasks, which the owner counts, stay (TasksKept).
func TestQwenStopKeepsTasks(t *testing.T) {
	for _, event := range []string{"Stop", "UserPromptSubmit", "StopFailure"} {
		a, err := Qwen([]byte(`{"session_id":"s","hook_event_name":"` + event + `","cwd":"/p","background_tasks":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		if a.TasksKept != (event == "Stop") {
			t.Errorf("%s: TasksKept %v", event, a.TasksKept)
		}
	}
}

func FuzzSourceTask(f *testing.F) {
	for _, name := range []string{"running.status", "failed.status"} {
		data, err := os.ReadFile(filepath.Join("testdata", "qwen-shells", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("shell-bg_33f5c2f1.status", data)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		running, pid, ok := SourceTask(SourceQwenShells, name, data)
		if running && !ok || pid < 0 || !ok && pid != 0 || ok && !SourceTaskName(SourceQwenShells, name) {
			t.Fatalf("%q: running %v, pid %d, ok %v", name, running, pid, ok)
		}
	})
}
