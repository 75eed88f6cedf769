package statusfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/agentstatus/agentstatus/statusfile"
)

func ExampleNewPublisher() {
	home, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(home)

	p, err := statusfile.NewPublisher("session-123", statusfile.Options{
		ConfigHome:   home,
		Agent:        "my-agent",
		ErrorHandler: func(err error) { log.Print(err) },
	})
	if err != nil {
		log.Fatal(err) // only for arguments it cannot use
	}
	defer p.Close() // removes the file

	p.Set(statusfile.Working, "Implement status adapter")
	p.SetState(statusfile.Blocked) // waiting for the user; the title stays

	fmt.Println(filepath.Base(p.Path()))
	// Output: b9c84322f82434cb46e239d20daf1f3714eeb5077f87fb0f0cd4bd336bc01b54.json
}

func ExampleDecode() {
	data := []byte(`{"schema":"gentle-shell.agent-status/v1","agent":"pi","session":"s-1","pid":7,"cwd":"/w","state":"working","task":{"title":"\u001b[31mFix\u001b[0m tests"},"updatedAt":"2026-07-17T12:34:56.000Z","future":true}`)
	s, err := statusfile.Decode(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.State, statusfile.SanitizeTitle(s.Title))
	now := time.Date(2026, 7, 17, 12, 35, 20, 0, time.UTC)
	fmt.Println(s.Fresh(now), now.Sub(s.UpdatedAt))

	_, err = statusfile.Decode([]byte(`{"schema":"gentle-shell.agent-status/v1","state":"idle"}`))
	fmt.Println(err)
	// Output:
	// working Fix tests
	// true 24s
	// missing-field "session"
}

func ExampleSanitizeTitle() {
	fmt.Printf("%q\n", statusfile.SanitizeTitle("\x1b[2Ahello\u202e  Jim\n"))
	fmt.Printf("%q\n", statusfile.SanitizeTitle("\x1b]0;only an unterminated OSC"))
	// Output:
	// "hello Jim"
	// ""
}

func ExampleEncode() {
	data, _ := statusfile.Encode(statusfile.Status{
		Agent: "pi", Session: "s-1", PID: 7, Cwd: "/w", State: statusfile.Idle,
		UpdatedAt: time.Date(2026, 7, 17, 12, 34, 56, 789_999_999, time.UTC),
	})
	fmt.Print(string(data))
	// Output: {"schema":"gentle-shell.agent-status/v1","agent":"pi","session":"s-1","pid":7,"cwd":"/w","state":"idle","task":null,"updatedAt":"2026-07-17T12:34:56.789Z"}
}
