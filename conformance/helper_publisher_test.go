package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/statusfile"
)

// testPublisher is the suite's test publisher: the line protocol of
// SPEC.md §11 over a deliberately plain implementation. Each flaw breaks
// one rule.
type testPublisher struct {
	flaw              string
	home, dir, name   string
	session, agent    string
	state, title      string
	prevState         string // lag-one-change writes these
	prevTitle         string
	written           fs.FileInfo
	checked, reported bool
	lastUpdated       time.Time
	leftovers         int
}

func helperPublisher(flaw string) int {
	p := &testPublisher{flaw: flaw, state: "idle",
		home:    os.Getenv("STATUSCONFORM_CONFIG_HOME"),
		session: os.Getenv("STATUSCONFORM_SESSION"),
		agent:   os.Getenv("STATUSCONFORM_AGENT"),
	}
	p.dir = filepath.Join(p.home, statusName)
	if flaw == "use-status-dir" {
		p.dir = os.Getenv("STATUS_DIR")
	}
	p.name = fileName(p.session)
	if flaw == "uppercase-name" {
		p.name = strings.ToUpper(p.name[:64]) + ".json"
	}
	if len(p.session) > 1000 && flaw == "max-1000-bytes" {
		fmt.Fprintln(os.Stderr, "publisher: session id too long")
		return 2
	}
	if err := statusfile.ValidateSession(p.session); err != nil && flaw != "accept-any-session" {
		fmt.Fprintln(os.Stderr, "publisher:", err)
		return 2
	}
	if flaw == "initial-working" {
		p.state = "working"
	}
	sigs := make(chan os.Signal, 2)
	if flaw != "die-on-sigterm" {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	} else {
		signal.Notify(sigs, syscall.SIGINT)
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	p.publish()
	every := 9 * time.Second
	switch flaw {
	case "no-heartbeat":
		every = time.Hour
	case "slow-heartbeat":
		every = 15 * time.Second
	}
	tick := time.NewTicker(every)
	// burst rewrites the record twice, 150 ms apart, then stops: a
	// heartbeat check that ended at the second change would pass it.
	// heartbeat-once rewrites it once at 150 ms and heartbeats once: a
	// check that ended at the second change past 10 s would pass it.
	var burst <-chan time.Time
	bursts := 0
	if flaw == "heartbeat-burst" || flaw == "heartbeat-once" {
		tick.Stop()
		burst = time.After(150 * time.Millisecond)
	}
	out := bufio.NewWriter(os.Stdout)
	answer := func(err error) {
		if err == nil {
			out.WriteString(`{"ok":true}` + "\n")
		} else {
			msg, _ := json.Marshal(err.Error())
			out.WriteString(`{"ok":false,"error":` + string(msg) + "}\n")
		}
		out.Flush()
	}
	// deferred fires for a write the answer-before-write flaw put off.
	var deferred <-chan time.Time
	for {
		select {
		case <-burst:
			p.publish()
			bursts++
			burst = nil
			switch {
			case bursts >= 2:
			case flaw == "heartbeat-burst":
				burst = time.After(150 * time.Millisecond)
			case flaw == "heartbeat-once":
				burst = time.After(every)
			}
		case <-deferred:
			deferred = nil
			p.publish()
		case line, ok := <-lines:
			if deferred != nil {
				deferred = nil
				p.publish()
			}
			if !ok {
				p.remove()
				return 0
			}
			if len(bytes.TrimSpace(line)) == 0 {
				if flaw == "answer-blank-lines" {
					answer(errors.New("blank line"))
				}
				continue
			}
			if err := p.apply(line); err != nil {
				answer(err)
				continue
			}
			if flaw == "answer-before-write" {
				// The change lands only after the harness has moved on:
				// when the next line comes (or input ends), or after a
				// deadline generous enough for any harness to look first.
				answer(nil)
				deferred = time.After(10 * time.Second)
				continue
			}
			err := p.publish()
			if err != nil && flaw == "crash-on-refusal" {
				fmt.Fprintln(os.Stderr, "publisher:", err)
				os.Exit(1)
			}
			answer(err)
		case <-tick.C:
			p.publish()
		case <-sigs:
			p.remove()
			return 0
		}
	}
}

func (p *testPublisher) apply(line []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return errors.New("not a JSON object")
	}
	state, title := p.state, p.title
	if raw, ok := m["state"]; ok {
		if err := json.Unmarshal(raw, &state); err != nil || string(raw) == "null" {
			return errors.New("state is not a string")
		}
		if !statusfile.State(state).Known() && p.flaw != "accept-unknown-state" {
			return errors.New("unknown state")
		}
	}
	if raw, ok := m["title"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &title); err != nil {
			return errors.New("title is not a string")
		}
	} else if ok {
		title = ""
	}
	p.prevState, p.prevTitle = p.state, p.title
	p.state, p.title = state, title
	return nil
}

// ensureDirs creates a missing config home and status directory (P3).
func (p *testPublisher) ensureDirs() error {
	if _, err := os.Lstat(p.home); errors.Is(err, fs.ErrNotExist) && p.flaw != "no-create-home" {
		if err := os.MkdirAll(p.home, 0o700); err != nil {
			return err
		}
		os.Chmod(p.home, 0o700)
	}
	if _, err := os.Lstat(p.dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(p.dir, 0o777); err != nil {
			return err
		}
		switch p.flaw {
		case "dir-mode-from-umask":
		case "dir-mode-0750":
			os.Chmod(p.dir, 0o750)
		default:
			os.Chmod(p.dir, 0o700)
		}
	}
	return nil
}

// check applies P2-P5 (unless the flaw skips them).
func (p *testPublisher) check() error {
	if p.flaw == "no-checks" || p.flaw == "check-once" && p.checked {
		return nil
	}
	p.checked = true
	dirCheck := func(path, what string, forbidden fs.FileMode) error {
		fi, err := os.Lstat(path)
		switch {
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symlink", what)
		case !fi.IsDir():
			return fmt.Errorf("%s is not a directory", what)
		case fileOwner(fi) != os.Geteuid():
			return fmt.Errorf("%s is not ours", what)
		case fi.Mode().Perm()&forbidden != 0:
			if p.flaw == "chmod-existing-dir" && what == "status directory" {
				return os.Chmod(path, 0o700)
			}
			return fmt.Errorf("%s has mode %v", what, fi.Mode().Perm())
		}
		return nil
	}
	if p.flaw == "refuse-parent-symlink" {
		if real, err := filepath.EvalSymlinks(p.home); err != nil || real != p.home {
			return errors.New("the config home's path goes through a symbolic link")
		}
	}
	if err := dirCheck(p.home, "config home", 0o022); err != nil {
		return err
	}
	forbidden := fs.FileMode(0o077)
	if p.flaw == "dir-mode-from-umask" || p.flaw == "dir-mode-0750" {
		forbidden = 0
	}
	if err := dirCheck(p.dir, "status directory", forbidden); err != nil {
		return err
	}
	fi, err := os.Lstat(filepath.Join(p.dir, p.name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case p.flaw == "follow-symlinks":
		return nil
	case !fi.Mode().IsRegular():
		return errors.New("the status file is not a regular file")
	case fileLinks(fi) > 1:
		return errors.New("the status file has more than one link")
	case fileOwner(fi) != os.Geteuid():
		return errors.New("the status file is not ours")
	}
	return nil
}

func (p *testPublisher) encode() []byte {
	now := time.Now()
	if p.flaw == "stale-heartbeat" && !p.lastUpdated.IsZero() {
		now = p.lastUpdated
	}
	p.lastUpdated = now
	state, rawTitle := p.state, p.title
	if p.flaw == "lag-one-change" && p.prevState != "" {
		state, rawTitle = p.prevState, p.prevTitle
	}
	title := statusfile.SanitizeTitle(rawTitle)
	switch p.flaw {
	case "raw-title":
		title = p.title
	case "cut-by-bytes":
		title = p.title
		if len(title) > 4096 {
			title = title[:4096]
		}
	}
	pid := os.Getppid()
	if p.flaw == "pid-zero" {
		pid = 0
	}
	cwd, _ := os.Getwd()
	if p.flaw == "relative-cwd" {
		cwd = "."
	}
	var task any
	if title != "" {
		task = map[string]string{"title": title}
	}
	ts := now.UTC().Format(timefmt.Layout)
	if p.flaw == "no-milliseconds" {
		ts = now.UTC().Format("2006-01-02T15:04:05Z")
	}
	rec := []struct {
		k string
		v any
	}{{"schema", statusfile.Schema}, {"agent", p.agent}, {"session", p.session}, {"pid", pid},
		{"cwd", cwd}, {"state", state}, {"task", task}, {"updatedAt", ts}}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range rec {
		if kv.k == "task" && task == nil && p.flaw == "omit-null-task" {
			continue
		}
		if i > 0 {
			b.WriteByte(',')
		}
		if p.flaw == "pretty-json" {
			b.WriteString("\n  ")
		}
		// encoding/json escapes <, >, &, U+2028 and U+2029, which E2
		// says not to.
		v, _ := json.Marshal(kv.v)
		if p.flaw != "html-escape" {
			switch x := kv.v.(type) {
			case string:
				v = appendJSONString(nil, x)
			case map[string]string:
				v = append(appendJSONString([]byte(`{"title":`), x["title"]), '}')
			}
		}
		fmt.Fprintf(&b, "%q:%s", kv.k, v)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func (p *testPublisher) publish() error {
	err := p.write()
	if err != nil && !p.reported {
		p.reported = true
		fmt.Fprintln(os.Stderr, "publisher:", err)
	}
	return err
}

func (p *testPublisher) write() error {
	// The checks come first: a refused directory is not even created in.
	if err := p.check(); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := p.ensureDirs(); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	data := p.encode()
	path := filepath.Join(p.dir, p.name)
	mode := fs.FileMode(0o600)
	if p.flaw == "mode-from-umask" {
		mode = 0o666
	}
	switch p.flaw {
	case "follow-symlinks", "non-atomic":
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
		if err != nil {
			return err
		}
		defer f.Close()
		half := len(data) / 2
		f.Write(data[:half])
		time.Sleep(2 * time.Millisecond)
		_, err = f.Write(data[half:])
		if err == nil {
			p.written, err = f.Stat()
		}
		return err
	case "leave-temp":
		p.leftovers++
		os.WriteFile(filepath.Join(p.dir, fmt.Sprintf(".%s.partial-%d", p.name, p.leftovers)), data[:len(data)/2], 0o600)
	}
	tmp := filepath.Join(p.dir, "."+p.name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	switch {
	case err != nil, p.flaw == "mode-from-umask":
	case p.flaw == "file-mode-0640":
		err = f.Chmod(0o640)
	default:
		err = f.Chmod(0o600)
	}
	if err == nil {
		p.written, err = f.Stat()
	}
	f.Close()
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func (p *testPublisher) remove() {
	if p.written == nil || p.flaw == "no-removal" {
		return
	}
	path := filepath.Join(p.dir, p.name)
	fi, err := os.Lstat(path)
	if err == nil && (os.SameFile(fi, p.written) || p.flaw == "remove-any-file") {
		os.Remove(path)
	}
}

// appendJSONString escapes s as JSON.stringify does (E2).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r < 0x20:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
