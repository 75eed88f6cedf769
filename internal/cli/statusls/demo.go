package statusls

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/internal/cli/base"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/statusfile"
)

const demoDescription = `Publishes four sessions (one blocked, two working, one idle) into a
temporary config home with package statusfile's Publisher, lists them as
statusls does (a table on a terminal, else TSV), and removes everything
again. Needs nothing set up.
`

// demoSessions are what the demo publishes.
var demoSessions = []struct {
	session, agent string
	state          statusfile.State
	title, cwd     string // cwd relative to $HOME
	waiting        statusfile.Waiting
	ended          statusfile.Ended
}{
	{"demo-api", "claude-code", statusfile.Blocked, "Run the database migration", "src/api",
		statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "make migrate"}, statusfile.Ended{}},
	{"demo-web", "pi", statusfile.Working, "Add dark mode to settings", "src/web", statusfile.Waiting{}, statusfile.Ended{}},
	{"demo-docs", "gentle-shell", statusfile.Working, "Rewrite the install guide 🚀", "src/docs", statusfile.Waiting{}, statusfile.Ended{}},
	{"demo-cli", "codex", statusfile.Idle, "", "src/cli", statusfile.Waiting{}, statusfile.Ended{Reason: "cancelled"}},
}

// demo publishes a few sessions into a temporary config home and lists them.
func demo(env *cmdEnv) int {
	tmp, err := os.MkdirTemp(env.TempDir, "statusls-demo-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "statusls: demo: %s\n", base.Message(err))
		return base.ExitError
	}
	defer os.RemoveAll(tmp)
	configHome := filepath.Join(tmp, "gentle-ai")
	home := env.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		home = tmp
	}
	var writeErr error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range demoSessions {
		p, err := statusfile.NewPublisher(s.session, statusfile.Options{
			ConfigHome:   configHome,
			Agent:        s.agent,
			State:        s.state,
			Title:        s.title,
			Cwd:          filepath.Join(home, filepath.FromSlash(s.cwd)),
			PID:          os.Getpid(),
			Clock:        env.Clock,
			ErrorHandler: func(err error) { writeErr = err },
		})
		if err != nil {
			fmt.Fprintf(env.Stderr, "statusls: demo: %s\n", base.Message(err))
			return base.ExitError
		}
		defer p.Close()
		if s.waiting.Kind != "" {
			p.SetWaiting(s.waiting)
		}
		if s.ended.Reason != "" {
			p.SetEnded(s.ended)
		}
		if err := p.Flush(ctx); err != nil {
			fmt.Fprintf(env.Stderr, "statusls: demo: publishing %s: %s\n", s.session, base.Message(err))
			return base.ExitError
		}
	}
	if writeErr != nil {
		fmt.Fprintf(env.Stderr, "statusls: demo: %v\n", writeErr)
		return base.ExitError
	}
	dir := location.StatusDir(configHome)
	isTerm, _ := env.Terminal()
	if isTerm {
		fmt.Fprintf(env.Stdout, "Published %d sessions into a temporary config home; statusls shows them as:\n\n", len(demoSessions))
	}
	// The listing proper, exactly as 'statusls --dir DIR' prints it.
	code := Run([]string{"--dir", dir}, env.Env)
	if isTerm && code == base.ExitOK {
		fmt.Fprint(env.Stdout, `
Try next (with your own agents' sessions):
  statusls --summary          one line for a status bar
  statusls --json             every field, for programs
  statusls doctor             when an agent does not show up
`)
	}
	return code
}
