package statusconform

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/agentstatus/agentstatus/conformance"
	"github.com/agentstatus/agentstatus/internal/cli/base"
)

// The results table: every implementation × role × level, as Bowtie
// publishes for JSON Schema. The committed copy is conformance/RESULTS.md
// (with conformance/results.json); TestCommittedResults fails when the
// vectors changed since it was generated.

// Table is what statusconform report writes as JSON.
type Table struct {
	Protocol string `json:"protocol"`
	Vectors  string `json:"vectors"` // conformance.Report.Vectors
	Rows     []Row  `json:"rows"`
}

// Row is one implementation in one role at one level.
type Row struct {
	Implementation string `json:"implementation"`
	Role           string `json:"role"` // "reader" or "publisher"
	Level          string `json:"level"`
	Command        string `json:"command"`
	Passed         int    `json:"passed"`
	Failed         int    `json:"failed"`
	// ExpectedFailures failed as the implementation's expected-failures
	// list says; UnexpectedPasses are listed there but passed.
	ExpectedFailures int      `json:"expectedFailures"`
	UnexpectedPasses int      `json:"unexpectedPasses"`
	Skipped          int      `json:"skipped"`
	Vectors          string   `json:"vectors"`
	Failures         []string `json:"failures,omitempty"` // ids that failed unexpectedly
	Note             string   `json:"note,omitempty"`
}

// implementation is one command the report runs.
type implementation struct {
	name, role string
	command    []string
	display    string   // the command as the table shows it; command joined by default
	expected   []string // expected failures
	skip       []string // not run (SKIP)
	note       string
}

// parseImplementation reads a --reader or --publisher value, "NAME=CMD
// [ARGS...]": the name, then the command split at white space (no
// quoting; a command that needs it belongs in a script).
func parseImplementation(s string) (name string, argv []string, err error) {
	name, cmd, ok := strings.Cut(s, "=")
	if !ok {
		return "", nil, errors.New("want NAME=CMD [ARGS...]")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", nil, errors.New("the name is empty")
	}
	for _, r := range name {
		if r == '|' || r == '`' || r == '\\' || unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			return "", nil, fmt.Errorf("the name %q holds %q, which a Markdown table cannot show", name, r)
		}
	}
	argv = strings.Fields(cmd)
	if len(argv) == 0 {
		return "", nil, fmt.Errorf("no command for %q", name)
	}
	return name, argv, nil
}

// reportFlags are the flags of report, one per line.
type reportFlags struct {
	markdown, jsonFile string
	bin, adapters      string
	readers            globs
	publishers         globs
	noBuiltin          bool
	run                globs
	scale              float64
}

func (f *reportFlags) register(fs *base.FlagSet) {
	fs.String(&f.markdown, "markdown", "", "FILE", "write the table as Markdown to FILE (default: standard output)")
	fs.String(&f.jsonFile, "json", "", "FILE", "also write the table as JSON to FILE")
	fs.String(&f.bin, "bin", "", "DIR", "where statusls and statuspub are (default: next to statusconform,\nelse $PATH)")
	fs.String(&f.adapters, "adapters", filepath.Join("conformance", "adapters"), "DIR", "the Python and jq adapters (default conformance/adapters)")
	fs.Var(&f.readers, "reader", "NAME=CMD", "also run CMD (split at white space) as a reader; repeatable")
	fs.Var(&f.publishers, "publisher", "NAME=CMD", "also run CMD (split at white space) as a publisher; repeatable")
	fs.Bool(&f.noBuiltin, "no-builtin", false, "run only the --reader and --publisher commands")
	fs.Var(&f.run, "run", "GLOB", "only the ids GLOB matches; repeatable (the table then covers those)")
	scaleFlag(fs, &f.scale)
}

func reportCommand(ctx context.Context, env *runner) *base.Command {
	return &base.Command{
		Name:    "report",
		Summary: "run every implementation and write the results table",
		Usage:   "report [flags]",
		Description: `report runs the reader cases and publisher checks against statusls,
statuspub serve, the Python adapters and the published jq one-liner (and any
--reader or --publisher command), one after the other, and writes a table of
implementation × role × level: passed, failed, expected failures, unexpected
passes, skipped, and the digest of the vectors. The jq one-liner's expected
failures are conformance/adapters/jq/expected-failures.txt (jq 1.6 only);
its timing-dependent case vanish/files-come-and-go is skipped, so that the
table is the same from run to run. Exit status 1 when an implementation
failed something it does not list as expected.`,
		Examples: `go build -o /tmp/bin ./cmd/... && /tmp/bin/statusconform report --bin /tmp/bin --markdown conformance/RESULTS.md --json conformance/results.json
statusconform report --no-builtin --reader 'mine=./my-reader --json'`,
		Setup: func(fs *base.FlagSet) base.Runner {
			f := &reportFlags{}
			f.register(fs)
			return func(args []string) int { return report(ctx, f, args, env) }
		},
	}
}

func report(ctx context.Context, f *reportFlags, args []string, env *runner) int {
	if len(args) > 0 {
		return env.prog.ReportUsage("report: unexpected argument %q", args[0])
	}
	if f.scale < 1 {
		return env.prog.ReportUsage("report: --timeout-scale must be at least 1")
	}
	var impls []implementation
	if !f.noBuiltin {
		var err error
		if impls, err = builtins(f); err != nil {
			fmt.Fprintf(env.Stderr, "statusconform: report: %v\n", err)
			return base.ExitUsage
		}
	}
	for _, x := range []struct {
		role string
		vals globs
	}{{"reader", f.readers}, {"publisher", f.publishers}} {
		for _, v := range x.vals {
			name, argv, err := parseImplementation(v)
			if err != nil {
				return env.prog.ReportUsage("report: --%s %q: %v", x.role, v, err)
			}
			impls = append(impls, implementation{name: name, role: x.role, command: argv})
		}
	}
	if len(impls) == 0 {
		return env.prog.ReportUsage("report: nothing to run (--no-builtin without --reader or --publisher)")
	}
	table := &Table{}
	ok := true
	for _, im := range impls {
		fmt.Fprintf(env.Stderr, "statusconform: report: %s %s ...\n", im.role, im.name)
		run := conformance.RunPublisher
		if im.role == "reader" {
			run = conformance.RunReader
		}
		rep, err := run(ctx, conformance.Options{Command: im.command, TimeoutScale: f.scale, Run: f.run,
			Skip: im.skip, ExpectedFailures: im.expected})
		if err != nil {
			return runError(env, "report: "+im.name, err)
		}
		if ctx.Err() != nil {
			return errorf(env, "interrupted")
		}
		table.Protocol, table.Vectors = rep.Protocol, rep.Vectors
		ok = ok && rep.OK()
		table.Rows = append(table.Rows, rows(im, rep)...)
	}
	var md bytes.Buffer
	table.WriteMarkdown(&md)
	if err := writeOut(f.markdown, env.Stdout, md.Bytes()); err != nil {
		return errorf(env, "report: %v", err)
	}
	if f.jsonFile != "" {
		data, _ := json.MarshalIndent(table, "", "  ")
		if err := writeOut(f.jsonFile, nil, append(data, '\n')); err != nil {
			return errorf(env, "report: %v", err)
		}
	}
	if !ok {
		return base.ExitError
	}
	return base.ExitOK
}

func writeOut(file string, std io.Writer, data []byte) error {
	if file == "" {
		_, err := std.Write(data)
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

// rows counts one run at each level: core (the core cases or checks) and
// hardened (all of them, as --level hardened runs them).
func rows(im implementation, rep *conformance.Report) []Row {
	var out []Row
	for _, lv := range []string{"core", "hardened"} {
		r := Row{Implementation: im.name, Role: im.role, Level: lv, Command: cmp.Or(im.display, strings.Join(im.command, " ")),
			Vectors: rep.Vectors, Note: im.note}
		count := map[string]*int{"PASS": &r.Passed, "FAIL": &r.Failed, "XFAIL": &r.ExpectedFailures, "XPASS": &r.UnexpectedPasses}
		for _, x := range rep.Results {
			if lv == "core" && x.Level != "core" {
				continue
			}
			*cmp.Or(count[x.Verdict()], &r.Skipped)++ // any other verdict is a skip
			if x.Verdict() == "FAIL" {
				r.Failures = append(r.Failures, x.ID)
			}
		}
		out = append(out, r)
	}
	return out
}

// WriteMarkdown writes the table as Markdown.
func (t *Table) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# Conformance results\n\n")
	fmt.Fprintf(w, "Generated by `statusconform report` (see conformance/README.md, \"The results table\"); do not edit.\n")
	fmt.Fprintf(w, "Protocol `%s`, vectors `%s`.\n\n", t.Protocol, t.Vectors)
	fmt.Fprintf(w, "| implementation | role | level | passed | failed | expected failures | unexpected passes | skipped | vectors |\n")
	fmt.Fprintf(w, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %d | %d | `%s` |\n", r.Implementation, r.Role, r.Level,
			r.Passed, r.Failed, r.ExpectedFailures, r.UnexpectedPasses, r.Skipped, r.Vectors)
	}
	fmt.Fprintf(w, "\nCommands (run from the repository's root):\n\n")
	seen := map[string]bool{}
	for _, r := range t.Rows {
		key := r.Implementation + "\x00" + r.Role
		if seen[key] {
			continue
		}
		seen[key] = true
		fmt.Fprintf(w, "- %s (%s): `%s`", r.Implementation, r.Role, r.Command)
		if r.Note != "" {
			fmt.Fprintf(w, ". %s", r.Note)
		}
		fmt.Fprintln(w)
	}
	var failing []string
	for _, r := range t.Rows {
		if r.Level == "hardened" && len(r.Failures) > 0 {
			failing = append(failing, fmt.Sprintf("- %s (%s): %s", r.Implementation, r.Role, "`"+strings.Join(r.Failures, "`, `")+"`"))
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(w, "\nUnexpected failures:\n\n%s\n", strings.Join(failing, "\n"))
	}
}

// builtins are the toolkit's and the adapters' implementations.
func builtins(f *reportFlags) ([]implementation, error) {
	find := func(name string) (string, error) {
		if f.bin != "" {
			p := filepath.Join(f.bin, name)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("--bin %s: %w", f.bin, err)
			}
			return p, nil
		}
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), name); fileExists(p) {
				return p, nil
			}
		}
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%s not found next to statusconform or in $PATH (build the commands and give --bin DIR)", name)
		}
		return p, nil
	}
	statusls, err := find("statusls")
	if err != nil {
		return nil, err
	}
	statuspub, err := find("statuspub")
	if err != nil {
		return nil, err
	}
	for _, tool := range []string{"python3", "jq", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found (the adapters need it; --no-builtin runs only the commands given)", tool)
		}
	}
	// The interpreter itself, not a launcher in front of it (pyenv's shim
	// is a shell script that would run once per case).
	python := "python3"
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		python = strings.TrimSpace(string(out))
	}
	py := filepath.Join(f.adapters, "python")
	jqDir := filepath.Join(f.adapters, "jq")
	if !fileExists(filepath.Join(py, "status_reader.py")) || !fileExists(filepath.Join(jqDir, "reader.sh")) {
		return nil, fmt.Errorf("no adapters in %s (run from the repository's root, or give --adapters DIR)", f.adapters)
	}
	version, _ := exec.Command("jq", "--version").Output()
	jqVersion := strings.TrimSpace(string(version))
	var jqExpected []string
	jqNote := "Expected failures: " + filepath.ToSlash(filepath.Join(jqDir, "expected-failures.txt")) + " (jq 1.6); vanish/files-come-and-go is skipped, since whether jq 1.6 fails it depends on when a file vanishes"
	if jqVersion == "jq-1.6" {
		if jqExpected, err = readExpectedFailures(filepath.Join(jqDir, "expected-failures.txt")); err != nil {
			return nil, err
		}
	} else {
		jqNote = "No expected-failures list for " + jqVersion + "; vanish/files-come-and-go is skipped"
	}
	// The table shows the commands without the directory of statusls
	// and statuspub, and the adapters by relative paths, so that it is
	// the same on every machine.
	return []implementation{
		{name: "statusls", role: "reader", command: []string{statusls, "--ndjson", "--now", "{now}"},
			display: "statusls --ndjson --now {now}"},
		{name: "statuspub serve", role: "publisher", command: []string{statuspub, "serve", "--config-home", "{home}", "--session", "{session}", "--agent", "{agent}"},
			display: "statuspub serve --config-home {home} --session {session} --agent {agent}"},
		{name: "Python", role: "reader", command: []string{python, "-S", filepath.Join(py, "status_reader.py")},
			display: "python3 -S " + filepath.ToSlash(filepath.Join(py, "status_reader.py"))},
		{name: "Python", role: "publisher", command: []string{python, "-S", filepath.Join(py, "status_publisher.py")},
			display: "python3 -S " + filepath.ToSlash(filepath.Join(py, "status_publisher.py"))},
		{name: "jq one-liner (" + jqVersion + ")", role: "reader", command: []string{"sh", filepath.Join(jqDir, "reader.sh")},
			expected: jqExpected, skip: []string{"vanish/files-come-and-go"}, note: jqNote},
	}, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
