// Command e2ereport turns the result lines of the real-agent harness
// (internal/e2e, $AGENTSTATUS_E2E_REPORT) of a run before a change and one
// after it into the Markdown table of the README: agent × scenario × step,
// how long the status disagreed with the screen.
//
//	go run ./bench/e2ereport BEFORE AFTER
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
)

var line = regexp.MustCompile(`^E2E agent=(\S+) scenario=(\S+) step=(\d+) name="([^"]*)" truth=(\S+) wrong=(\S+)(?: why="(?:[^"\\]|\\.)*")?$`)

// key names one step: its number alone is not unique (a scenario may
// report a check of its own under step 0 or -1).
type key struct{ agent, scenario, step, name string }

type row struct {
	key
	truth string
}

func read(path string) (map[key]string, []row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	got := map[key]string{}
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		k := key{m[1], m[2], m[3], m[4]}
		if _, dup := got[k]; !dup {
			rows = append(rows, row{k, m[5]})
		}
		got[k] = m[6]
	}
	return got, rows, sc.Err()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: e2ereport BEFORE AFTER")
		os.Exit(2)
	}
	before, _, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2ereport:", err)
		os.Exit(1)
	}
	after, rows, err := read(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2ereport:", err)
		os.Exit(1)
	}
	fmt.Println("| agent | scenario | step | screen | wrong before (s) | wrong after (s) |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		b := before[r.key]
		if b == "" {
			b = "—"
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.agent, r.scenario, r.name, r.truth, b, after[r.key])
	}
}
