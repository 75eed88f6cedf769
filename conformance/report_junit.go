package conformance

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// WriteJUnit writes the report as JUnit XML, which CI systems show as test
// results: one testcase per case or check, named by its id. A FAIL is a
// failure with the reason as its message and the details as its text; a
// SKIP and an expected failure (XFAIL) are skipped; an expected failure
// that passed (XPASS) is a failure.
func (r *Report) WriteJUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
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
			(&Report{Results: []Result{x}}).writeResult(&text, x)
			tc.Failure = &failure{Message: xmlText(x.Reason), Type: "FAIL", Text: xmlText(text.String())}
			tc.SystemErr = xmlText(x.Stderr)
			suite.Failures++
		case "XPASS":
			tc.Failure = &failure{Message: "listed as an expected failure, but passed: remove it from the list", Type: "XPASS"}
			suite.Failures++
		case "XFAIL":
			tc.Skipped = &skipped{Message: xmlText("expected failure: " + x.Reason)}
			suite.Skipped++
		case "SKIP":
			tc.Skipped = &skipped{Message: xmlText(x.Reason)}
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
