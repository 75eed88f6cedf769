package render_test

import (
	"fmt"
	"os"
	"time"

	"github.com/agentstatus/agentstatus/internal/render"
	"github.com/agentstatus/agentstatus/reader"
	"github.com/agentstatus/agentstatus/statusfile"
)

func Example() {
	at := time.Date(2026, 7, 17, 12, 34, 56, 0, time.UTC)
	e := reader.Entry{
		Name:    statusfile.FileName("s-1"),
		Verdict: reader.Fresh,
		Age:     2500 * time.Millisecond,
		Status: statusfile.Status{Schema: statusfile.Schema, Agent: "pi", Session: "s-1", PID: 12345,
			Cwd: "/home/me/work", State: statusfile.Blocked, Title: "\x1b[31mClean up\x1b[0m", UpdatedAt: at,
			WaitingFor: statusfile.Waiting{Kind: "permission", Tool: "Bash", Detail: "rm -rf build", Since: at}},
	}
	os.Stdout.Write(render.AppendTSV(nil, &e.Status))
	fmt.Printf("%s\n", render.AppendJSON(nil, &e))
	fmt.Print(render.Table([]reader.Entry{e}, render.TableOptions{Width: 72, Home: "/home/me"}))
	fmt.Println(render.Summary([]reader.Entry{e}))
	// Output:
	// pi	s-1	blocked	Clean up
	// {"file":"6a840baf5d8c3ff241688aeb14546e653774cd5387faf1cb982b0fbbf1fbb810.json","schema":"gentle-shell.agent-status/v1","session":"s-1","agent":"pi","pid":12345,"cwd":"/home/me/work","state":"blocked","title":"Clean up","updatedAt":"2026-07-17T12:34:56.000Z","waitingFor":{"kind":"permission","tool":"Bash","detail":"rm -rf build","since":"2026-07-17T12:34:56.000Z"},"ended":null,"fresh":true,"age":2.5,"alive":null,"verdict":"fresh","reason":null,"error":null}
	// STATE    SESSION  AGE  AGENT  CWD     TITLE     WHY
	// blocked  s-1      2s   pi     ~/work  Clean up  Bash: rm -rf build
	// 1 blocked
}
