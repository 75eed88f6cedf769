package acpbridge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agentstatus/agentstatus/internal/testmain"
	"go.uber.org/goleak"
)

// agentEnv makes the test binary a fake agent: echo (standard input to
// standard output, byte for byte), exit:N, sleep (until a signal), or acp
// (answers session/new, and each prompt with a permission request, then
// the stop reason of the prompt's text once the permission is answered).
const agentEnv = "ACPBRIDGE_TEST_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(agentEnv); mode != "" {
		os.Exit(fakeAgent(mode))
	}
	testmain.Prepare()
	testmain.MoreParallel(8) // the tests wait for the agents they start
	goleak.VerifyTestMain(m)
}

func fakeAgent(mode string) int {
	switch {
	case mode == "echo":
		io.Copy(os.Stdout, os.Stdin)
		return 0
	case len(mode) > 5 && mode[:5] == "exit:":
		n, _ := strconv.Atoi(mode[5:])
		return n
	case mode == "sleep":
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return 0
	case mode == "acp":
		r := bufio.NewReader(os.Stdin)
		var stop string
		var promptID json.RawMessage
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return 0
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Prompt []struct{ Text string } `json:"prompt"`
				} `json:"params"`
			}
			json.Unmarshal(line, &m)
			switch {
			case m.Method == "session/new":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"S1"}}`+"\n", m.ID)
			case m.Method == "session/prompt":
				promptID, stop = m.ID, m.Params.Prompt[0].Text
				fmt.Println(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"S1","toolCall":{"toolCallId":"t","title":"make","kind":"execute"},"options":[]}}`)
			case string(m.ID) == `"p"`:
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":%q}}`+"\n", promptID, stop)
			}
		}
	}
	return 2
}
