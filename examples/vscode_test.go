//go:build unix

package examples_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/conformance/vector"
	"github.com/agentstatus/agentstatus/internal/location"
	"github.com/agentstatus/agentstatus/internal/testbin"
	"github.com/agentstatus/agentstatus/internal/timefmt"
	"github.com/agentstatus/agentstatus/statusfile"
)

// The VS Code extension (vscode/) reads the status directory itself, with
// its own TypeScript port of the reader rules (vscode/src/protocol.ts).
// These tests compile it with the TypeScript its package-lock.json pins
// and hold the port to the same standard as every reader: the conformance
// suite's reader cases, and the Go toolkit's sanitizer and decoder on the
// same bytes. They need node and the extension's node_modules (`npm ci`
// in examples/vscode); without them they skip, and fail in CI.

// vscodeBuild returns node and the extension compiled by the TypeScript
// of its node_modules, once per test binary. The output is kept between
// runs, named after a hash of what tsc reads (see vscodeCompiled): a
// compile costs about 7 s of processor time.
func vscodeBuild(t testing.TB) (node, out string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
			t.Fatalf("node is required: %v", err)
		}
		t.Skip("node not installed")
	}
	tsc := filepath.Join("vscode", "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("AGENTSTATUS_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s: %v (run npm ci in examples/vscode)", tsc, err)
		}
		t.Skip("examples/vscode/node_modules is missing: run npm ci there")
	}
	vscodeOut.Do(func() {
		vscodeOut.dir, vscodeOut.err = vscodeCompiled(node, tsc)
	})
	if vscodeOut.err != nil {
		t.Fatal(vscodeOut.err)
	}
	return node, vscodeOut.dir
}

var vscodeOut struct {
	sync.Once
	dir string
	err error
}

// vscodeCompiled returns the directory of the extension compiled by tsc.
// It is kept in a directory of this user's that nobody else may enter,
// under the temporary directory beside the commands the tests build
// (internal/testbin), named after a hash of the TypeScript version, the
// package lock, tsconfig.json and every file under vscode/src: a run
// with the same sources uses it as it is, and two checkouts with the same
// sources share it. It is written whole, then renamed into place. Where
// no such directory can be had safely, the extension is compiled into
// the directory of the test binary's commands, removed at exit.
func vscodeCompiled(node, tsc string) (string, error) {
	compile := func(dir string) error {
		msg, err := exec.Command(node, tsc, "-p", "vscode", "--outDir", dir).CombinedOutput()
		if err != nil {
			return fmt.Errorf("tsc: %v\n%s", err, msg)
		}
		return nil
	}
	key, err := vscodeSourceHash()
	if err != nil {
		return "", err
	}
	cache, ok := privateDir(filepath.Join(os.TempDir(), fmt.Sprintf("agentstatus-test-%d", os.Getuid())))
	if !ok {
		dir := filepath.Join(binDir, "vscode-out")
		return dir, compile(dir)
	}
	dir := filepath.Join(cache, "vscode-"+key)
	if _, err := os.Lstat(dir); err == nil {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: see pruneVSCode
		return dir, nil
	}
	tmp, err := os.MkdirTemp(cache, ".vscode-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // left only when the rename fails
	if err := compile(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, err2 := os.Lstat(dir); err2 != nil { // else another run put it there first
			return "", err
		}
	}
	pruneVSCode(cache, dir)
	return dir, nil
}

// privateDir makes dir if need be and reports whether it is a directory
// (not a link) of this user's that nobody else may enter.
func privateDir(dir string) (string, bool) {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", false
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR ||
		int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return "", false
	}
	return dir, true
}

// pruneVSCode removes the compiled extensions in cache, other than keep,
// that no run has used for a week.
func pruneVSCode(cache, keep string) {
	old, _ := filepath.Glob(filepath.Join(cache, "vscode-*"))
	for _, d := range old {
		if fi, err := os.Lstat(d); err == nil && d != keep && time.Since(fi.ModTime()) > 7*24*time.Hour {
			os.RemoveAll(d)
		}
	}
}

// vscodeSourceHash is a hash of everything tsc's output depends on.
func vscodeSourceHash() (string, error) {
	h := sha256.New()
	add := func(path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(path), len(data))
		h.Write(data)
		return nil
	}
	for _, f := range []string{"node_modules/typescript/package.json", "package-lock.json", "tsconfig.json"} {
		if err := add(filepath.Join("vscode", f)); err != nil {
			return "", err
		}
	}
	err := filepath.WalkDir(filepath.Join("vscode", "src"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return add(path)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// The extension's reader logic passes every reader case of the suite, at
// the hardened level (core alone with -short). It runs in one Node
// process, as in VS Code's extension host (vscode/src/test/reader-server.ts),
// which each case's command asks: a Node start per case was most of this
// package's processor time. reader-cli.js itself, the same logic with a
// process around it, runs the cases of a few topics, refusals among them.
func TestVSCodeReaderConformance(t *testing.T) {
	t.Parallel()
	node, out := vscodeBuild(t)
	level := "hardened"
	if testing.Short() {
		level = "core"
	}
	t.Run("server", func(t *testing.T) {
		vscodeReaderCases(t, conformance.Options{Command: vscodeReaderServer(t, node, out), Level: level})
	})
	t.Run("reader-cli", func(t *testing.T) {
		vscodeReaderCases(t, conformance.Options{Command: []string{node, filepath.Join(out, "reader-cli.js")}, Level: level,
			Run: []string{"basic/*", "dir/*", "location/*"}})
	})
}

// vscodeReaderCases runs the selected reader cases and wants every one to
// pass.
func vscodeReaderCases(t *testing.T, opts conformance.Options) {
	t.Helper()
	opts.Timeout, opts.Parallel = 30*time.Second, 4
	rep, err := conformance.RunReader(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, r := range rep.Results {
		switch r.Outcome {
		case "PASS":
			passed++
		case "FAIL":
			t.Errorf("%s: %s\n  %s\n  expected: %s\n  actual: %s\n  stderr: %s", r.ID, r.Reason, strings.Join(r.Details, "\n  "), r.Expected, r.Actual, r.Stderr)
		}
	}
	if passed == 0 {
		t.Fatal("no case passed")
	}
}

// vscodeReaderServer starts the extension's reader logic as a server
// (vscode/src/test/reader-server.ts) for the test, and returns the command
// that runs one case against it: this test binary, without -race
// (testbin.Helper), as vscodeReaderClient.
func vscodeReaderServer(t *testing.T, node, out string) []string {
	t.Helper()
	client, err := testbin.Helper()
	if err != nil {
		t.Fatalf("building the client: %v", err)
	}
	dir, err := os.MkdirTemp("", "vscode-reader-") // short: a socket's path has at most 104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	_, stdout := startNode(t, node, filepath.Join(out, "test", "reader-server.js"), sock)
	if ready, err := bufio.NewReader(stdout).ReadString('\n'); ready != "ready\n" {
		t.Fatalf("the reader server did not start: %q %v", ready, err)
	}
	return []string{client, "-vscode-reader-client", sock}
}

func init() { helpers["-vscode-reader-client"] = vscodeReaderClient }

// vscodeReaderClient runs one case against the reader server listening on
// args[0]: it sends its environment, writes what readerMain wrote to its
// own standard output and error, and exits with readerMain's status.
func vscodeReaderClient(args []string) int {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var res struct {
		Code           int
		Stdout, Stderr string
	}
	err := func() error {
		if len(args) != 1 {
			return fmt.Errorf("usage: -vscode-reader-client SOCKET")
		}
		conn, err := dialUnix(args[0])
		if err != nil {
			return err
		}
		defer conn.Close()
		line, _ := json.Marshal(env)
		if _, err := conn.Write(append(line, '\n')); err != nil {
			return err
		}
		return json.NewDecoder(conn).Decode(&res)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "vscode-reader-client:", err)
		return 2
	}
	os.Stdout.WriteString(res.Stdout)
	os.Stderr.WriteString(res.Stderr)
	return res.Code
}

// dialUnix connects to the Unix socket at path. Package net would do, but
// it links the C resolver into this test binary, which then starts slower
// as a client (dynamically linked), once per case.
func dialUnix(path string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// differ is the extension's protocol logic as a line server
// (vscode/src/test/differential.ts), one per test binary.
type differ struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Scanner
}

func (d *differ) ask(t testing.TB, op string, data []byte, v any) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	line, _ := json.Marshal(map[string]any{"op": op, "b64": base64.StdEncoding.EncodeToString(data)})
	if _, err := d.in.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	if !d.out.Scan() {
		t.Fatalf("the node differ stopped: %v", d.out.Err())
	}
	if err := json.Unmarshal(d.out.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", d.out.Text(), err)
	}
}

func startDiffer(t testing.TB, node, out string) *differ {
	t.Helper()
	in, stdout := startNode(t, node, filepath.Join(out, "test", "differential.js"))
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	return &differ{in: in, out: sc}
}

// startNode starts node with args for the rest of the test, its standard
// error on the test's, and returns pipes to its standard input and output.
// Closing its input at the end of the test ends it.
func startNode(t testing.TB, node string, args ...string) (io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(node, args...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return in, stdout
}

// sanitizeInputs are titles to compare: the statusfile fuzz corpus, the
// title and text of every conformance vector's files, and random strings
// of the characters the sanitizer treats specially, invalid UTF-8 and
// lengths around the 4096-unit cut among them.
func sanitizeInputs(t *testing.T) []string {
	t.Helper()
	var in []string
	seeds, _ := filepath.Glob(filepath.Join("..", "statusfile", "testdata", "fuzz", "FuzzSanitizeTitle", "*"))
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		arg := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(lines[len(lines)-1], "string("), "[]byte("), ")")
		s, err := strconv.Unquote(arg)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		in = append(in, s)
	}
	if len(seeds) == 0 {
		t.Fatal("no fuzz corpus for the sanitizer")
	}
	alphabet := []string{"a", " ", "\x1b", "[", "]", "P", "X", "^", "_", "\\", "(", "7", "\a", "\u009b", "\u009c", "\u009d",
		"\u0090", "\u0085", "1", ";", "m", "\n", "\t", "\u202e", "\u200d", "\u200b", "👩", "🏽", "🇫", "\u0301", "é",
		"\xff", "\xe2\x82", "\xed\xa0\x80", "\u3000", "\u00a0", "\ufe0f", "\ufeff", "\u061c", "ก", "\u0e33", "한", "\u1100"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		n := r.IntN(40)
		if r.IntN(4) == 0 {
			n = 4080 + r.IntN(24)
		}
		for b.Len() < n {
			if n > 100 && b.Len() < n-30 {
				b.WriteString("x")
				continue
			}
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		in = append(in, b.String())
	}
	return in
}

// The sanitizer is SPEC.md §7 exactly, as statusfile implements it.
func TestVSCodeSanitizerMatchesGo(t *testing.T) {
	t.Parallel()
	node, out := vscodeBuild(t)
	d := startDiffer(t, node, out)
	for _, raw := range sanitizeInputs(t) {
		var title, text string
		d.ask(t, "title", []byte(raw), &title)
		if want := statusfile.SanitizeTitle(raw); title != want {
			t.Errorf("title %q:\n  extension %q\n  statusfile %q", vscodeShort(raw), vscodeShort(title), vscodeShort(want))
		}
		d.ask(t, "text", []byte(raw), &text)
		if want := statusfile.SanitizeText(raw); text != want {
			t.Errorf("text %q:\n  extension %q\n  statusfile %q", vscodeShort(raw), vscodeShort(text), vscodeShort(want))
		}
	}
}

func vscodeShort(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

type decoded struct {
	Reason     string   `json:"reason"`
	Session    string   `json:"session"`
	Agent      string   `json:"agent"`
	PID        int      `json:"pid"`
	Cwd        string   `json:"cwd"`
	State      string   `json:"state"`
	Title      string   `json:"title"`
	Sec        string   `json:"sec"`
	Nsec       int      `json:"nsec"`
	WaitingFor []string `json:"waitingFor"` // kind, tool, detail, since ("" for none)
	Ended      []string `json:"ended"`      // reason, detail, at
	Why        string   `json:"why"`
}

func (d decoded) String() string {
	b, _ := json.Marshal(d)
	return string(b)
}

func goDecode(data []byte) decoded {
	s, err := statusfile.Decode(data)
	if err != nil {
		if de, ok := err.(*statusfile.DecodeError); ok {
			return decoded{Reason: string(de.Reason)}
		}
		return decoded{Reason: err.Error()}
	}
	t1 := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(timefmt.Layout)
	}
	// The title as shown: statusfile keeps only what the sanitizer looks
	// at (4,096 UTF-16 units and one more), the extension all of it.
	got := decoded{Session: s.Session, Agent: s.Agent, PID: s.PID, Cwd: s.Cwd, State: string(s.State), Title: statusfile.SanitizeTitle(s.Title),
		Sec: strconv.FormatInt(s.UpdatedAt.Unix(), 10), Nsec: s.UpdatedAt.Nanosecond(), Why: s.Why()}
	if w := s.WaitingFor; w.Kind != "" {
		got.WaitingFor = []string{w.Kind, w.Tool, w.Detail, t1(w.Since)}
	}
	if e := s.Ended; e.Reason != "" {
		got.Ended = []string{e.Reason, e.Detail, t1(e.At)}
	}
	return got
}

// whyRecords are records with every shape of waitingFor and ended that
// SPEC.md Y6 speaks of, and strings of every kind in their members.
func whyRecords(t *testing.T) [][]byte {
	t.Helper()
	rec := func(state, extra string) []byte {
		return []byte(`{"schema":"gentle-shell.agent-status/v1","agent":"a","session":"s","pid":1,"cwd":"/w","state":"` + state +
			`","task":null,"updatedAt":"2026-12-01T15:04:05.123Z"` + extra + "}")
	}
	shapes := []string{
		`"waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-12-01T15:04:00.5+01:00"}`,
		`"waitingFor":{"kind":"permission","tool":"Bash","detail":null,"since":null}`,
		`"waitingFor":{"kind":"permission","tool":null,"detail":"x"}`,
		`"waitingFor":{"kind":"question","tool":1,"detail":["x"],"since":"yesterday"}`,
		`"waitingFor":{"kind":"auth"}`,
		`"waitingFor":{"kind":"","tool":"Bash"}`,
		`"waitingFor":{"kind":1}`,
		`"waitingFor":{"kind":"\u001b[31m"}`,
		`"waitingFor":"permission"`,
		`"waitingFor":null`,
		`"waitingFor":{"kind":"a","kind":"b","detail":"1","detail":"2"}`,
		`"ended":{"reason":"done","detail":"x","at":"2026-12-01T15:04:05Z"}`,
		`"ended":{"reason":"cancelled","detail":"x"}`,
		`"ended":{"reason":"failed","detail":"server_error","at":null}`,
		`"ended":{"reason":"failed"}`,
		`"ended":{"reason":"rate_limited","detail":"429"}`,
		`"ended":{"reason":"timeout","detail":"5m"}`,
		`"ended":{"reason":""}`,
		`"ended":[]`,
		`"waitingFor":{"kind":"question"},"ended":{"reason":"done"}`,
	}
	var out [][]byte
	for _, state := range []string{"blocked", "idle", "working", "reviewing"} {
		for _, sh := range shapes {
			out = append(out, rec(state, ","+sh))
		}
	}
	// Random text in every member, around the 64- and 200-unit caps.
	for i, raw := range sanitizeInputs(t) {
		if i%7 != 0 {
			continue
		}
		if len(raw) > 300 {
			raw = raw[len(raw)-190-i%40:]
		}
		q, _ := json.Marshal(raw)
		long := strings.Repeat("k", 60+i%8) + raw
		ql, _ := json.Marshal(long)
		out = append(out,
			rec("blocked", `,"waitingFor":{"kind":`+string(ql)+`,"tool":`+string(q)+`,"detail":`+string(q)+`}`),
			rec("blocked", `,"waitingFor":{"kind":"permission","tool":`+string(q)+`,"detail":`+string(ql)+`}`),
			rec("idle", `,"ended":{"reason":`+string(q)+`,"detail":`+string(ql)+`}`))
	}
	return out
}

// The decoder keeps and drops the same records as statusfile's, for the
// same reasons, with the same fields (the title as shown), waitingFor and ended shown the same
// and in the same words (statusfile.Status.Why): on every file of the
// conformance vectors, the statusfile fuzz corpus, and whyRecords.
func TestVSCodeDecoderMatchesGo(t *testing.T) {
	t.Parallel()
	node, out := vscodeBuild(t)
	d := startDiffer(t, node, out)
	cases, err := vector.Load(os.DirFS(filepath.Join("..", "conformance", "testdata")), "reader")
	if err != nil {
		t.Fatal(err)
	}
	var inputs [][]byte
	for _, c := range cases {
		for _, e := range c.Entries {
			if e.Kind == vector.File && len(e.Data) <= statusfile.MaxFileSize {
				inputs = append(inputs, e.Data)
			}
		}
	}
	seeds, _ := filepath.Glob(filepath.Join("..", "statusfile", "testdata", "fuzz", "FuzzDecode", "*"))
	for _, f := range seeds {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		arg := strings.TrimSuffix(strings.TrimPrefix(lines[len(lines)-1], "[]byte("), ")")
		if s, err := strconv.Unquote(arg); err == nil {
			inputs = append(inputs, []byte(s))
		}
	}
	if len(inputs) < 100 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	inputs = append(inputs, whyRecords(t)...)
	for _, data := range inputs {
		var got decoded
		d.ask(t, "decode", data, &got)
		got.Title = statusfile.SanitizeTitle(got.Title) // as shown; the sanitizers are compared below
		if want := goDecode(data); got.String() != want.String() {
			t.Errorf("%q:\n  extension  %v\n  statusfile %v", vscodeShort(string(data)), got, want)
		}
	}
}

// FuzzVSCodeSanitizer compares the two sanitizers on what the fuzzer
// makes (go test -fuzz FuzzVSCodeSanitizer ./examples).
func FuzzVSCodeSanitizer(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m")
	f.Add(strings.Repeat("x", 4094) + "👩\u200d💻")
	f.Add("a\x1bPq\ax\x1b\\b\xff")
	node, out := vscodeBuild(f)
	d := startDiffer(f, node, out)
	f.Fuzz(func(t *testing.T, raw string) {
		var title, text string
		d.ask(t, "title", []byte(raw), &title)
		if want := statusfile.SanitizeTitle(raw); title != want {
			t.Errorf("title %q:\n  extension %q\n  statusfile %q", raw, title, want)
		}
		d.ask(t, "text", []byte(raw), &text)
		if want := statusfile.SanitizeText(raw); text != want {
			t.Errorf("text %q:\n  extension %q\n  statusfile %q", raw, text, want)
		}
	})
}

// What statuspub writes for a permission prompt and a rate-limited turn,
// the extension's reader shows, with the words of SPEC.md Y7 computed
// from the same fields (TestVSCodeDecoderMatchesGo checks the words).
func TestVSCodeReaderStatuspub(t *testing.T) {
	t.Parallel()
	node, out := vscodeBuild(t)
	home, pid := standInAgent(t)
	for _, args := range [][]string{
		{"--session", "v-1", "--agent", "claude-code", "--state", "blocked", "--waiting-for", "permission", "--tool", "Bash", "--detail", "rm -rf build"},
		{"--session", "v-2", "--agent", "claude-code", "--state", "idle", "--ended", "rate_limited", "--detail", "rate_limit"},
	} {
		cmd := exec.Command(filepath.Join(binDir, "statuspub"), append([]string{"set", "--config-home", home, "--pid", pid}, args...)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("statuspub %v: %v %s", args, err, msg)
		}
	}
	cmd := exec.Command(node, filepath.Join(out, "reader-cli.js"))
	cmd.Env = append(os.Environ(), location.ConfigHomeEnv+"="+home, "STATUS_DIR=")
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	t1 := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		delete(m, "pid")
		delete(m, "cwd")
		if w, ok := m["waitingFor"].(map[string]any); ok && t1.MatchString(fmt.Sprint(w["since"])) {
			w["since"] = "T1"
		}
		if e, ok := m["ended"].(map[string]any); ok && t1.MatchString(fmt.Sprint(e["at"])) {
			e["at"] = "T1"
		}
		lines = append(lines, m)
	}
	want := `[{"agent":"claude-code","ended":{"at":"T1","detail":"rate_limit","reason":"rate_limited"},"session":"v-2","state":"idle","title":null,"waitingFor":null},` +
		`{"agent":"claude-code","ended":null,"session":"v-1","state":"blocked","title":null,"waitingFor":{"detail":"rm -rf build","kind":"permission","since":"T1","tool":"Bash"}}]`
	if b, _ := json.Marshal(lines); string(b) != want {
		t.Errorf("the extension's reader shows\n%s\nwant\n%s", b, want)
	}
}
