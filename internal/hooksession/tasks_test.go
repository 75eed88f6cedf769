package hooksession

import (
	"fmt"
	"github.com/agentstatus/agentstatus/internal/agenthook"
	"testing"
)

func TestTaskListApply(t *testing.T) {
	keep := (*string)(nil)
	var l taskList
	steps := []struct {
		op    agenthook.TaskOp
		title *string
	}{
		{agenthook.TaskOp{ID: "1", Create: true, Subject: "Add the publisher"}, ptr("")},
		{agenthook.TaskOp{ID: "2", Create: true, Subject: "Write tests", ActiveForm: "Writing tests"}, ptr("")},
		{agenthook.TaskOp{ID: "2", Status: "in_progress"}, ptr("Write tests")},
		{agenthook.TaskOp{ID: "1", Status: "in_progress"}, ptr("Add the publisher")}, // creation order
		{agenthook.TaskOp{ID: "1", Subject: "Add the \x1b[1mhook\x1b[0m publisher"}, ptr("Add the hook publisher")},
		{agenthook.TaskOp{ID: "1", Status: "completed"}, ptr("Write tests")},
		{agenthook.TaskOp{ID: "2", Status: "deleted"}, ptr("")},
		{agenthook.TaskOp{ID: "9", Status: "in_progress"}, keep},                       // unknown task, nothing to show
		{agenthook.TaskOp{ID: "9", ActiveForm: "Doing nine"}, ptr("Doing nine")},       // its activeForm
		{agenthook.TaskOp{ID: "3", Create: true, Subject: "Three"}, ptr("Doing nine")}, // TaskCreated event
		{agenthook.TaskOp{ID: "9", Status: "completed"}, ptr("")},
		{agenthook.TaskOp{ID: "3", Status: "in_progress", Subject: "Three!"}, ptr("Three!")},
		{agenthook.TaskOp{ID: "404", Status: "deleted"}, ptr("Three!")},
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
		l.apply(agenthook.TaskOp{ID: fmt.Sprint(i), Create: true, Subject: "t"})
		if i%2 == 0 {
			l.apply(agenthook.TaskOp{ID: fmt.Sprint(i), Status: "completed"})
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
	if got := l.apply(agenthook.TaskOp{ID: "new", Status: "in_progress", Subject: "New"}); got == nil || *got != "New" {
		t.Errorf("title %v", got)
	}
	if len(l.Tasks) != maxTasks || l.index("1") >= 0 || l.index("3") < 0 {
		t.Errorf("%d tasks; oldest kept: %v", len(l.Tasks), l.index("1") >= 0)
	}
}
