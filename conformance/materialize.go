package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentstatus/agentstatus/internal/conformance/vector"
)

// skipError says why a case or check cannot run here (for example, it
// needs root). The harness reports it as SKIP, never as PASS.
type skipError struct{ reason string }

func (e *skipError) Error() string { return "skipped: " + e.reason }

func skipf(format string, args ...any) error {
	return &skipError{reason: fmt.Sprintf(format, args...)}
}

// Layout of a materialized case, relative to its root directory.
const (
	homeDir      = "home"             // the config home; STATUS_DIR is home/agent-status
	statusName   = "agent-status"     // the status directory's name
	realHomeDir  = "real-home"        // dir: parent-symlink — where home points
	realStatus   = "real-status"      // dir: symlink — where the status directory points
	outsideDir   = "outside"          // targets of links that must not be followed
	decoyHomeDir = "decoy-home"       // $GENTLE_PI_CONFIG_HOME, which readers must not use
	decoySession = "decoy-session"    // the session in the decoy directory
	expectedFile = "expected.json"    // written by Materialize for people
	churnPrefix  = "churn-session-"   // sessions of the churn files
	otherUID     = 65534              // "another account": nobody
	otherGID     = 65534              //
	privateDir   = fs.FileMode(0o700) //
)

// materialized is a case written to disk.
type materialized struct {
	root      string // the case's root directory
	statusDir string // what STATUS_DIR names
	decoyHome string // what GENTLE_PI_CONFIG_HOME names
	c         *vector.Case
}

// env is the environment a reader under test gets, besides the harness's
// own: STATUS_DIR, STATUSCONFORM_NOW and a decoy GENTLE_PI_CONFIG_HOME whose
// only session a reader shows if it ignores STATUS_DIR (SPEC.md L4).
func (m *materialized) env() map[string]string {
	return map[string]string{
		"STATUS_DIR":            m.statusDir,
		"STATUSCONFORM_NOW":     m.c.NowText,
		"GENTLE_PI_CONFIG_HOME": m.decoyHome,
	}
}

// writeCase writes case c under root, which must be an existing empty
// directory of the current account. It returns a *skipError when the case
// needs what this process cannot do (root, a Unix system).
func writeCase(c *vector.Case, root string) (*materialized, error) {
	if why := c.NeedsRoot(); why != "" && !isRoot() {
		return nil, skipf("%s; run as root to include this case", why)
	}
	if needsUnix(c) && !unixLike {
		return nil, skipf("needs a Unix system (modes, FIFOs, sockets)")
	}
	m := &materialized{root: root, c: c, decoyHome: filepath.Join(root, decoyHomeDir)}
	home := filepath.Join(root, homeDir)
	m.statusDir = filepath.Join(home, statusName)
	homeReal := home
	if c.Dir.ParentSymlink {
		homeReal = filepath.Join(root, realHomeDir)
	}
	dir := filepath.Join(homeReal, statusName)
	if c.Dir.Symlink {
		dir = filepath.Join(root, realStatus)
	}
	// Each step runs only while every one before it succeeded.
	var err error
	step := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	step(func() error { return mkdir(homeReal, privateDir) })
	if c.Dir.ParentSymlink {
		step(func() error { return os.Symlink(realHomeDir, home) })
	}
	if c.Dir.Symlink {
		step(func() error { return os.Symlink(filepath.Join("..", realStatus), filepath.Join(homeReal, statusName)) })
	}
	if len(c.Outside) > 0 {
		step(func() error { return mkdir(filepath.Join(root, outsideDir), privateDir) })
		for _, o := range c.Outside {
			step(func() error { return writeFile(filepath.Join(root, outsideDir, o.Name), o.Data, 0o600) })
		}
	}
	switch c.Dir.NotDir {
	case vector.File:
		step(func() error {
			return writeFile(dir, record("s-not-a-directory", "pi", "working", "a file, not a directory", c.Now), 0o600)
		})
	case vector.FIFO:
		step(func() error { return mkfifo(dir, 0o600) })
	case "":
		if c.Dir.Missing {
			break
		}
		step(func() error { return mkdir(dir, privateDir) })
		for _, e := range c.Entries {
			step(func() error {
				if err := m.create(dir, e); err != nil {
					return fmt.Errorf("%s: %s: %w", c.ID, e.Name, err)
				}
				return nil
			})
		}
		step(func() error { return os.Chmod(dir, c.Dir.Mode) })
		if c.Dir.OtherOwner {
			step(func() error { return lchown(dir) })
		}
	}
	decoyDir := filepath.Join(m.decoyHome, statusName)
	step(func() error { return mkdir(m.decoyHome, privateDir) })
	step(func() error { return mkdir(decoyDir, privateDir) })
	decoy := record(decoySession, "decoy", "working",
		"wrong directory: GENTLE_PI_CONFIG_HOME was read instead of STATUS_DIR", c.Now)
	step(func() error { return writeFile(filepath.Join(decoyDir, fileName(decoySession)), decoy, 0o600) })
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *materialized) create(dir string, e vector.Entry) error {
	p := filepath.Join(dir, e.Name)
	var err error
	switch e.Kind {
	case vector.File:
		err = writeFile(p, e.Data, e.Mode)
	case vector.Dir:
		err = mkdir(p, e.Mode)
	case vector.Symlink:
		target := e.Target
		if out, ok := strings.CutPrefix(target, "outside/"); ok {
			target, err = filepath.Rel(dir, filepath.Join(m.root, outsideDir, out))
			if err != nil {
				return err
			}
		}
		return os.Symlink(target, p)
	case vector.FIFO:
		err = mkfifo(p, e.Mode)
	case vector.Socket:
		err = mksocket(p, e.Mode)
	case vector.Device:
		err = mkzero(p, e.Mode)
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	if err != nil {
		return err
	}
	if e.OtherOwner {
		return lchown(p)
	}
	return nil
}

func needsUnix(c *vector.Case) bool {
	if c.Dir.Mode != privateDir || c.Dir.OtherOwner || c.Dir.NotDir == vector.FIFO {
		return true
	}
	for _, e := range c.Entries {
		switch {
		case e.Kind == vector.FIFO, e.Kind == vector.Socket, e.Kind == vector.Device, e.OtherOwner:
			return true
		case e.Kind == vector.File && e.Mode != 0o600:
			return true
		}
	}
	return false
}

// isRoot reports whether the harness may give files away (chown).
func isRoot() bool { return os.Geteuid() == 0 }

// lchown gives p to another account (otherUID), without following a link.
func lchown(p string) error { return os.Lchown(p, otherUID, otherGID) }

// mkdir creates a directory with exactly mode, whatever the umask.
func mkdir(p string, mode fs.FileMode) error {
	if err := os.Mkdir(p, mode); err != nil {
		return err
	}
	return os.Chmod(p, mode)
}

// writeFile creates a new file with exactly mode, whatever the umask.
func writeFile(p string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p, mode)
	}
	return err
}

func fileName(session string) string {
	sum := sha256.Sum256([]byte(session))
	return hex.EncodeToString(sum[:]) + ".json"
}

// record is a well-formed v1 record, as a publisher writes it.
func record(session, agent, state, title string, at time.Time) []byte {
	task := "null"
	if title != "" {
		task = fmt.Sprintf(`{"title":%q}`, title)
	}
	return fmt.Appendf(nil, `{"schema":"gentle-shell.agent-status/v1","agent":%q,"session":%q,"pid":0,"cwd":"/","state":%q,"task":%s,"updatedAt":%q}`+"\n",
		agent, session, state, task, at.UTC().Format(vector.TimeLayout))
}

// churn starts creating and removing c.Churn status files in the status
// directory, over and over, as publishers that start and shut down do. At
// any time about half of them exist; each one appears atomically (written
// to a dot-file, then renamed) and holds a stale record, so a reader never
// shows it, but a reader that lists the directory and then opens what it
// listed finds some of them gone. It returns once the churn is running,
// with a function that stops it and waits. Without churn it does nothing.
func (m *materialized) churn() (stop func()) {
	n := m.c.Churn
	if n < 2 || m.c.Dir.Missing { // vector.Parse allows 2 or more
		return func() {}
	}
	dir := m.statusDir
	done := make(chan struct{})
	var wg, ready sync.WaitGroup
	const workers = 2
	for w := range workers {
		// Worker w owns the sessions w, w+workers, ...: a ring in which
		// it removes one file and creates the one half a ring ahead.
		var ring []string
		for k := w; k < n; k += workers {
			ring = append(ring, fmt.Sprintf("%s%d", churnPrefix, k))
		}
		if len(ring) < 2 {
			continue
		}
		half := len(ring) / 2
		create := func(session string) {
			name := fileName(session)
			tmp := filepath.Join(dir, "."+name+".churn")
			data := record(session, "churn", "working", "", m.c.Now.Add(-time.Hour))
			if writeFile(tmp, data, 0o600) == nil {
				os.Rename(tmp, filepath.Join(dir, name))
			}
		}
		for _, s := range ring[:half] {
			create(s)
		}
		ready.Add(1)
		wg.Go(func() {
			// The churn is running once a first file went and came.
			for i := 0; ; i++ {
				os.Remove(filepath.Join(dir, fileName(ring[i%len(ring)])))
				create(ring[(i+half)%len(ring)])
				if i == 0 {
					ready.Done()
				}
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	ready.Wait()
	return func() {
		close(done)
		wg.Wait()
	}
}

// Materialize writes every reader case under dir, which it creates if it
// is missing: each in dir/<id>/, with the status directory and an
// expected.json of what a conforming reader shows, for implementers who
// would rather run their own tests. It returns how many cases it wrote,
// and the cases it skipped with why (they need root, or a Unix system).
func Materialize(dir string) (written int, skipped map[string]string, err error) {
	cases, err := cases()
	if err != nil {
		return 0, nil, err
	}
	skipped = map[string]string{}
	for _, c := range cases {
		root := filepath.Join(dir, filepath.FromSlash(c.ID))
		if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
			return 0, nil, err
		}
		if err := mkdir(root, privateDir); err != nil {
			return 0, nil, err
		}
		m, err := writeCase(c, root)
		var skip *skipError
		if errors.As(err, &skip) {
			skipped[c.ID] = skip.reason
			os.RemoveAll(root)
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		// The directories as paths relative to the case's.
		env := m.env()
		for _, k := range []string{"STATUS_DIR", "GENTLE_PI_CONFIG_HOME"} {
			rel, _ := filepath.Rel(root, env[k])
			env[k] = filepath.ToSlash(rel)
		}
		data, err := json.MarshalIndent(expectedJSON{
			ID: c.ID, Level: c.Level, Rules: c.Rules, Requirements: c.Requirements,
			Description: c.Description, Now: c.NowText, Env: env, Expect: c.Expect,
			Churn: c.Churn, Runs: c.Runs, Sessions: append([]vector.Session{}, c.Sessions...),
		}, "", "  ")
		if err != nil {
			return 0, nil, err
		}
		if err := writeFile(filepath.Join(root, expectedFile), append(data, '\n'), 0o644); err != nil {
			return 0, nil, err
		}
	}
	return len(cases) - len(skipped), skipped, nil
}

// expectedJSON is the expected.json that Materialize writes next to
// each case's directory.
type expectedJSON struct {
	ID           string            `json:"id"`
	Level        string            `json:"level"`
	Rules        []string          `json:"rules"`
	Requirements []string          `json:"requirements"`
	Description  string            `json:"description,omitempty"`
	Now          string            `json:"now"`
	Env          map[string]string `json:"env"`
	Expect       vector.Expect     `json:"expect"`
	Churn        int               `json:"churn,omitempty"`
	Runs         int               `json:"runs,omitempty"`
	Sessions     []vector.Session  `json:"sessions"`
}

// removeAll removes a materialized tree, restoring the permissions that
// would stop an ordinary account from doing so.
func removeAll(root string) error {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(root)
}
