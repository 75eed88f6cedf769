//go:build linux

package e2e

import "time"

// The harder moments: a long idle, compaction, retries, a new
// conversation, subagents. Each agent's steps are in harder_<agent>_test.go;
// resume is in resume_test.go.

// longIdle is how long an idle session is watched (agentRun.holds): past
// the 30 s staleness of a record no hook touches, and past the 60 s after
// which Claude Code and Qwen Code send their idle reminder (Notification
// idle_prompt).
const longIdle = 65 * time.Second
