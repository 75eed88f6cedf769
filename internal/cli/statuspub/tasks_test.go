package statuspub

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestTaskListApply(t *testing.T) {
	keep := (*string)(nil)
	var l taskList
	steps := []struct {
		op    taskOp
		title *string
	}{
		{taskOp{id: "1", create: true, subject: "Add the publisher"}, ptr("")},
		{taskOp{id: "2", create: true, subject: "Write tests", activeForm: "Writing tests"}, ptr("")},
		{taskOp{id: "2", status: "in_progress"}, ptr("Write tests")},
		{taskOp{id: "1", status: "in_progress"}, ptr("Add the publisher")}, // creation order
		{taskOp{id: "1", subject: "Add the \x1b[1mhook\x1b[0m publisher"}, ptr("Add the hook publisher")},
		{taskOp{id: "1", status: "completed"}, ptr("Write tests")},
		{taskOp{id: "2", status: "deleted"}, ptr("")},
		{taskOp{id: "9", status: "in_progress"}, keep},                       // unknown task, nothing to show
		{taskOp{id: "9", activeForm: "Doing nine"}, ptr("Doing nine")},       // its activeForm
		{taskOp{id: "3", create: true, subject: "Three"}, ptr("Doing nine")}, // TaskCreated event
		{taskOp{id: "9", status: "completed"}, ptr("")},
		{taskOp{id: "3", status: "in_progress", subject: "Three!"}, ptr("Three!")},
		{taskOp{id: "404", status: "deleted"}, ptr("Three!")},
	}
	for i, st := range steps {
		got := l.apply(st.op)
		switch {
		case st.title == nil && got != nil:
			t.Errorf("step %d %+v: title %q, want kept", i, st.op, *got)
		case st.title != nil && (got == nil || *got != *st.title):
			t.Errorf("step %d %+v: title %v, want %q", i, st.op, got, *st.title)
		}
	}
	if len(l.Tasks) != 3 || l.index("2") >= 0 || l.index("404") >= 0 {
		t.Errorf("tasks %+v", l.Tasks)
	}
}

func TestTaskListBounded(t *testing.T) {
	var l taskList
	for i := range 2 * maxTasks {
		l.apply(taskOp{id: fmt.Sprint(i), create: true, subject: "t"})
		if i%2 == 0 {
			l.apply(taskOp{id: fmt.Sprint(i), status: "completed"})
		}
	}
	// The completed tasks went first: the pending ones are all there.
	if len(l.Tasks) != maxTasks {
		t.Fatalf("%d tasks, want %d", len(l.Tasks), maxTasks)
	}
	for _, task := range l.Tasks {
		if task.Status != "pending" {
			t.Fatalf("kept %+v while pending tasks were dropped", task)
		}
	}
	// Then the oldest.
	if got := l.apply(taskOp{id: "new", status: "in_progress", subject: "New"}); got == nil || *got != "New" {
		t.Errorf("title %v", got)
	}
	if len(l.Tasks) != maxTasks || l.index("1") >= 0 || l.index("3") < 0 {
		t.Errorf("%d tasks; oldest kept: %v", len(l.Tasks), l.index("1") >= 0)
	}
}

func TestClaudeTaskEvents(t *testing.T) {
	tests := []struct {
		file string
		op   *taskOp
	}{
		{"post-tool-use-taskcreate.json", &taskOp{id: "1", create: true, subject: "Add the hook publisher", activeForm: "Adding the hook publisher"}},
		{"post-tool-use-taskupdate-start-1.json", &taskOp{id: "1", status: "in_progress"}},
		{"post-tool-use-taskupdate-start-2.json", &taskOp{id: "2", status: "in_progress", activeForm: "Writing the tests"}},
		{"task-created.json", &taskOp{id: "3", create: true, subject: "Update the README"}},
		{"task-completed.json", &taskOp{id: "2", subject: "Write the tests", status: "completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "claude", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a, err := claudeAction(data)
			if err != nil {
				t.Fatal(err)
			}
			if a.kind != actSet || a.task == nil || *a.task != *tt.op || a.title != nil {
				t.Errorf("action %+v task %+v, want task %+v", a, a.task, *tt.op)
			}
		})
	}
	// A PreToolUse of a task tool changes nothing yet: the tool may fail.
	a, err := claudeAction([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"TaskUpdate","tool_input":{"taskId":"1","status":"in_progress"}}`))
	if err != nil || a.task != nil || a.state != "working" {
		t.Errorf("PreToolUse TaskUpdate: %+v %v", a, err)
	}
}
