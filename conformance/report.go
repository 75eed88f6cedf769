package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The outcomes of a case or check. A crash, a hang or a harness failure
// is never PASS.
const (
	outcomePass = "PASS"
	outcomeFail = "FAIL"
	outcomeSkip = "SKIP"
)

// Result is the outcome of one reader case, publisher check or hook trace.
type Result struct {
	ID string `json:"id"`
	// Outcome is PASS, FAIL or SKIP; empty in a listing ([Options].List).
	Outcome      string   `json:"outcome"`
	Level        string   `json:"level,omitempty"` // "core" or "hardened"; none for hook traces
	Rules        []string `json:"rules"`
	Requirements []string `json:"requirements"`
	// Reason is, for SKIP, why the check did not run; for FAIL, what went
	// wrong, in one line.
	Reason   string   `json:"reason,omitempty"`
	Details  []string `json:"details,omitempty"` // every difference found
	Expected string   `json:"expected,omitempty"`
	Actual   string   `json:"actual,omitempty"`
	Exit     string   `json:"exit,omitempty"`   // how the process ended
	Stderr   string   `json:"stderr,omitempty"` // the process's standard error
	Timeline []string `json:"timeline,omitempty"`
	Notes    []string `json:"notes,omitempty"` // observations worth knowing on PASS too
	Seconds  float64  `json:"seconds"`
	// ExpectedFailure marks a result listed as a known failure of the
	// implementation (an expected-failures file): FAIL is then XFAIL,
	// which does not fail the run, and PASS is XPASS, which does.
	ExpectedFailure bool `json:"expectedFailure,omitempty"`
}

// Verdict is the word the text report starts the result's line with:
// PASS, FAIL or SKIP, or for an expected failure XFAIL (it failed, as
// expected) or XPASS (it passed: the expectation is out of date).
func (x Result) Verdict() string {
	if x.ExpectedFailure {
		switch x.Outcome {
		case outcomeFail:
			return "XFAIL"
		case outcomePass:
			return "XPASS"
		}
	}
	return x.Outcome
}

// Report is a whole run.
type Report struct {
	Suite string `json:"suite"` // "reader", "publisher" or "hooks"
	// Protocol and Vectors say what was checked: the protocol, and a
	// digest of the suite's vectors and checks (the first 12 hex digits
	// of a SHA-256), so that two runs can tell whether they ran the same
	// suite; ids never change meaning, so results stay comparable id by
	// id across digests.
	Protocol string    `json:"protocol"`
	Vectors  string    `json:"vectors"`
	Command  []string  `json:"command,omitempty"`
	Level    string    `json:"level,omitempty"`
	Started  time.Time `json:"started"`
	// Calibration says how the deadlines were fitted to the
	// implementation's own speed, and TimeoutScale is the factor every
	// deadline was multiplied by in the end.
	Calibration  string  `json:"calibration,omitempty"`
	TimeoutScale float64 `json:"timeoutScale,omitempty"`
	// Notes are observations about the whole run, such as what is likely
	// wrong when every case failed the same way.
	Notes   []string `json:"notes,omitempty"`
	Seconds float64  `json:"seconds"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	// ExpectedFailed counts the FAILs listed as expected (XFAIL), and
	// UnexpectedPassed the PASSes listed as expected to fail (XPASS).
	ExpectedFailed   int      `json:"expectedFailed,omitempty"`
	UnexpectedPassed int      `json:"unexpectedPassed,omitempty"`
	Results          []Result `json:"results"`
	// UnusedExpectedFailures are the globs of [Options].ExpectedFailures
	// that match no result: the list is out of date.
	UnusedExpectedFailures []string `json:"-"`
}

// finish sorts the results by id and counts them.
func (r *Report) finish() {
	slices.SortFunc(r.Results, func(a, b Result) int { return strings.Compare(a.ID, b.ID) })
	r.count()
	r.Protocol, r.Vectors = protocol, vectorsDigest()
	r.Seconds = time.Since(r.Started).Round(time.Millisecond).Seconds()
}

func (r *Report) count() {
	r.Passed, r.Failed, r.Skipped, r.ExpectedFailed, r.UnexpectedPassed = 0, 0, 0, 0, 0
	for _, x := range r.Results {
		switch x.Outcome {
		case outcomePass:
			r.Passed++
		case outcomeFail:
			r.Failed++
		case outcomeSkip:
			r.Skipped++
		}
		switch x.Verdict() {
		case "XFAIL":
			r.ExpectedFailed++
		case "XPASS":
			r.UnexpectedPassed++
		}
	}
}

// OK reports whether nothing failed but expected failures, and no
// expected failure passed.
func (r *Report) OK() bool { return r.Failed == r.ExpectedFailed && r.UnexpectedPassed == 0 }

// find returns the result with the given id.
func (r *Report) find(id string) (Result, bool) {
	if i := slices.IndexFunc(r.Results, func(x Result) bool { return x.ID == id }); i >= 0 {
		return r.Results[i], true
	}
	return Result{}, false
}

// summary is the closing line: "N passed, M failed, K skipped", and with
// expected failures ", X of the failures expected, Y expected failures
// passed".
func (r *Report) summary() string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
	if r.ExpectedFailed > 0 || r.UnexpectedPassed > 0 {
		s += fmt.Sprintf(", %d of the failures expected, %d expected failures passed", r.ExpectedFailed, r.UnexpectedPassed)
	}
	return s
}

// WriteText writes a line per result (with the details of failures), then
// the summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, x := range r.Results {
		switch x.Verdict() {
		case "SKIP":
			fmt.Fprintf(&b, "SKIP %s: %s\n", x.ID, x.Reason)
		case "PASS":
			fmt.Fprintf(&b, "PASS %s\n", x.ID)
		case "XPASS":
			fmt.Fprintf(&b, "XPASS %s: listed as an expected failure, but passed: remove it from the list\n", x.ID)
		case "XFAIL":
			fmt.Fprintf(&b, "XFAIL %s: %s\n", x.ID, clip(printable(x.Reason)))
		default:
			writeFailure(&b, x)
		}
	}
	if r.Calibration != "" {
		b.WriteString(printable(r.Calibration) + "\n")
	}
	for _, n := range r.Notes {
		b.WriteString("note: " + printable(n) + "\n")
	}
	if r.Vectors != "" {
		fmt.Fprintf(&b, "suite: %s, vectors %s, %.1fs\n", r.Protocol, r.Vectors, r.Seconds)
	}
	b.WriteString(r.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFailure writes a FAIL line with everything known about it.
func writeFailure(b *strings.Builder, x Result) {
	fmt.Fprintf(b, "FAIL %s\n", x.ID)
	for _, q := range x.Requirements {
		field(b, "requirement", q)
	}
	field(b, "failure", x.Reason)
	for _, d := range x.Details {
		field(b, "-", d)
	}
	field(b, "expected", x.Expected)
	field(b, "actual", x.Actual)
	field(b, "exit", x.Exit)
	field(b, "stderr", strings.TrimRight(x.Stderr, "\n"))
	for _, n := range x.Notes {
		field(b, "note", n)
	}
	if len(x.Timeline) > 0 {
		b.WriteString("    timeline:\n")
		for _, t := range x.Timeline {
			b.WriteString("      " + clip(printable(t)) + "\n")
		}
	}
}

// field writes "    name: value", continuing multi-line values indented.
func field(b *strings.Builder, name, value string) {
	if value == "" {
		return
	}
	lines := strings.Split(printable(value), "\n")
	fmt.Fprintf(b, "    %s: %s\n", name, clip(lines[0]))
	for _, l := range lines[1:] {
		fmt.Fprintf(b, "      %s\n", clip(l))
	}
}

// clip shortens a line of the text report; the JSON report has it whole.
func clip(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes; see --json)", len(s)-cut)
}

// printable keeps what a reader or publisher under test printed from
// driving the terminal of whoever reads the report: control characters
// other than newline and tab are shown escaped.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x061c:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteJSON writes the full report.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJUnit writes the report as JUnit XML, which CI systems show as test
// results: one testcase per case or check, named by its id. A FAIL is a
// failure with the reason as its message and the details as its text; a
// SKIP and an expected failure (XFAIL) are skipped; an expected failure
// that passed (XPASS) is a failure.
func (r *Report) WriteJUnit(w io.Writer) error {
	// A failure has a type and text, skipped only a message.
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *failure `xml:"skipped,omitempty"`
		SystemErr string   `xml:"system-err,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	suite := testsuite{Name: "statusconform " + r.Suite, Tests: len(r.Results),
		Time: fmt.Sprintf("%.3f", r.Seconds)}
	for _, x := range r.Results {
		tc := testcase{Name: x.ID, Classname: "statusconform." + r.Suite, Time: fmt.Sprintf("%.3f", x.Seconds)}
		switch x.Verdict() {
		case "FAIL":
			var text strings.Builder
			writeFailure(&text, x)
			tc.Failure = &failure{Message: xmlText(x.Reason), Type: "FAIL", Text: xmlText(text.String())}
			tc.SystemErr = xmlText(x.Stderr)
			suite.Failures++
		case "XPASS":
			tc.Failure = &failure{Message: "listed as an expected failure, but passed: remove it from the list", Type: "XPASS"}
			suite.Failures++
		case "XFAIL":
			tc.Skipped = &failure{Message: xmlText("expected failure: " + x.Reason)}
			suite.Skipped++
		case "SKIP":
			tc.Skipped = &failure{Message: xmlText(x.Reason)}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(suite); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlText makes s printable (as the text report does) and drops what XML
// 1.0 cannot hold at all.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 0xFFFE || r == 0xFFFF || r >= 0xD800 && r <= 0xDFFF {
			return 0xFFFD
		}
		return r
	}, printable(s))
}
