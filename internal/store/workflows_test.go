package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/ids"

	jsengine "github.com/fount-dev/fount/internal/store/internal/jetstream"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

func workflow(id, owner, slug string) model.Workflow {
	return model.Workflow{ID: id, OwnerID: owner, UserID: owner, Name: slug, NameSlug: slug, Active: true,
		Trigger: model.WorkflowTrigger{Type: model.TriggerManual},
		Steps:   []model.WorkflowStep{{Name: "a", Kind: model.StepCode, Code: "export default {run(){}}"}}}
}

func TestWorkflowLifecycle(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		w, err := b.CreateWorkflow(ctx, workflow("p_1", "u_a", "flow"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.Order == 0 {
			t.Error("CreateWorkflow assigned no order")
		}
		if _, err := b.CreateWorkflow(ctx, workflow("p_2", "u_a", "flow"), nil); !errors.Is(err, ErrConflict) {
			t.Errorf("a taken slug: err = %v, want ErrConflict", err)
		}
		if _, err := b.CreateWorkflow(ctx, workflow("p_2", "u_b", "flow"), nil); err != nil {
			t.Errorf("the same slug of another owner: %v", err)
		}
		got, err := b.WorkflowBySlug(ctx, "u_a", "flow")
		if err != nil || got.ID != "p_1" {
			t.Fatalf("WorkflowBySlug = %v, %v", got.ID, err)
		}

		// A source trigger's subscription is stored with it, replaced by an
		// update, and removed with the workflow.
		w.Trigger = model.WorkflowTrigger{Type: model.TriggerSource, EmitterID: "dc_x"}
		sub := model.Subscription{ID: "sub_1", OwnerID: "u_a", EmitterID: "dc_x", ListenerID: "p_1"}
		w, err = b.UpdateWorkflow(ctx, w, &sub)
		if err != nil {
			t.Fatal(err)
		}
		if w.Version != 1 || w.Trigger.SubscriptionID != "sub_1" {
			t.Errorf("updated: version %d, subscription %q", w.Version, w.Trigger.SubscriptionID)
		}
		subs, _ := b.ListSubscriptions(ctx, "u_a")
		if len(subs) != 1 || subs[0].ListenerID != "p_1" {
			t.Fatalf("subscriptions after update = %+v", subs)
		}
		w.Trigger = model.WorkflowTrigger{Type: model.TriggerManual}
		if w, err = b.UpdateWorkflow(ctx, w, nil); err != nil {
			t.Fatal(err)
		}
		if subs, _ := b.ListSubscriptions(ctx, "u_a"); len(subs) != 0 {
			t.Errorf("the trigger's subscription outlived its trigger: %+v", subs)
		}

		pg, err := b.ListWorkflows(ctx, "u_a", Page{Limit: 10})
		if err != nil || len(pg.Items) != 1 || pg.Items[0].Version != 2 {
			t.Fatalf("ListWorkflows = %+v, %v", pg.Items, err)
		}
		if _, err := b.AppendEvents(ctx, "p_1", []model.Event{{Name: "", Data: json.RawMessage(`1`)}}, 100); err != nil {
			t.Fatal(err)
		}
		if err := b.DBSet(ctx, "p_1", "k", []byte(`1`)); err != nil {
			t.Fatal(err)
		}
		if err := b.DeleteWorkflow(ctx, "p_1"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := b.DBGet(ctx, "p_1", "k"); ok {
			t.Error("a deleted workflow's db remains")
		}
		if _, err := b.GetWorkflow(ctx, "p_1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted workflow: err = %v", err)
		}
		if evs, _ := b.ListEvents(ctx, "p_1", "", 10); len(evs) != 0 {
			t.Errorf("a deleted workflow's events remain: %d", len(evs))
		}
		if _, err := b.CreateWorkflow(ctx, workflow("p_3", "u_a", "flow"), nil); err != nil {
			t.Errorf("the slug of a deleted workflow is not free again: %v", err)
		}
	})
}

// TestLargeWorkflows: a workflow whose steps bundle more than a NATS
// message holds is stored, read back whole, updated to a small one and
// deleted on every backend; on JetStream its parts go with the bytes
// that needed them.
func TestLargeWorkflows(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		big := workflow("p_big", "u_a", "big")
		big.Steps[0].Bundle = strings.Repeat("var x = 1;\n", 1<<20) // 11 MiB
		if _, err := b.CreateWorkflow(ctx, big, nil); err != nil {
			t.Fatal(err)
		}
		got, err := b.GetWorkflow(ctx, "p_big")
		if err != nil || got.Steps[0].Bundle != big.Steps[0].Bundle {
			t.Fatalf("read back: %d bytes of bundle, %v; want %d", len(got.Steps[0].Bundle), err, len(big.Steps[0].Bundle))
		}
		all, err := b.AllWorkflows(ctx)
		if err != nil || len(all) != 1 || all[0].ID != "p_big" || all[0].Steps[0].Bundle != big.Steps[0].Bundle {
			t.Fatalf("AllWorkflows: %d workflows, %v; want p_big whole", len(all), err)
		}
		js, isJS := b.(*JetStream)
		if isJS {
			if found, err := jsengine.Inspect(js.Engine).HasPart(ctx, kv.Workflows, "p_big", 1); err != nil || !found {
				t.Fatalf("the second part is not stored: %v, %v", found, err)
			}
		}
		small := workflow("p_big", "u_a", "big")
		if _, err := b.UpdateWorkflow(ctx, small, nil); err != nil {
			t.Fatal(err)
		}
		if got, err := b.GetWorkflow(ctx, "p_big"); err != nil || got.Steps[0].Bundle != "" {
			t.Fatalf("after the update: %d bytes of bundle, %v; want none", len(got.Steps[0].Bundle), err)
		}
		if isJS {
			if found, err := jsengine.Inspect(js.Engine).HasPart(ctx, kv.Workflows, "p_big", 1); err != nil || found {
				t.Errorf("a part outlived the bytes that needed it: %v, %v", found, err)
			}
		}
		wantErr(t, "delete", b.DeleteWorkflow(ctx, "p_big"), nil)
	})
}

func TestWorkflowLimit(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		if _, err := b.CreateWorkflow(ctx, workflow("p_1", "u_a", "a"), nil); err != nil {
			t.Fatal(err)
		}
		var le *LimitError
		if _, err := b.CreateWorkflow(ctx, workflow("p_2", "u_a", "b"), nil); !errors.As(err, &le) || le.Kind != model.CountWorkflows {
			t.Errorf("past the limit: err = %v", err)
		}
	}, WithLimits(Limits{model.CountWorkflows: 1}))
}

func TestExecutionsKeptAndFound(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		if _, err := b.CreateWorkflow(ctx, workflow("p_1", "u_a", "flow"), nil); err != nil {
			t.Fatal(err)
		}
		const keep = 3
		var want []string
		for i := range 5 {
			inv, err := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_1", Kind: "manual", Event: json.RawMessage(fmt.Sprint(i))})
			if err != nil {
				t.Fatal(err)
			}
			x := &model.Execution{ID: ids.ExecutionID("p_1", inv.ID), WorkflowID: "p_1", Status: model.ExecutionSuccess}
			if _, err := b.CompleteRun(ctx, inv, RunCommit{Execution: x, ExecutionsKept: keep}); err != nil {
				t.Fatal(err)
			}
			want = append([]string{x.ID}, want...)
		}
		got, err := b.ListExecutions(ctx, "p_1", 10)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []string
		for _, x := range got {
			gotIDs = append(gotIDs, x.ID)
		}
		if !slices.Equal(gotIDs, want[:keep]) {
			t.Errorf("kept executions = %v, want the newest %d of %v", gotIDs, keep, want)
		}
		if x, err := b.GetExecution(ctx, want[0]); err != nil || x.ID != want[0] {
			t.Errorf("GetExecution(%s) = %v, %v", want[0], x.ID, err)
		}
		for _, id := range []string{want[4], "ex_", "ex_1-", "p_1", "ex_1-x", "ex_nope-1"} {
			if _, err := b.GetExecution(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Errorf("GetExecution(%q): err = %v, want ErrNotFound", id, err)
			}
		}
		if err := b.DeleteWorkflow(ctx, "p_1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := b.ListExecutions(ctx, "p_1", 10); len(got) != 0 {
			t.Errorf("a deleted workflow's executions remain: %d", len(got))
		}
	})
}

func FuzzParseExecutionID(f *testing.F) {
	f.Add("ex_abc-12")
	f.Add("ex_-1")
	f.Fuzz(func(t *testing.T, id string) {
		wf, seq, ok := kv.ParseExecutionID(id)
		if ok && ids.ExecutionID(wf, kv.SeqID(seq)) != id {
			t.Errorf("parse(%q) = %q, %d does not make the id again", id, wf, seq)
		}
	})
}

func TestSetWorkflowStep(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		w := workflow("p_1", "u_a", "flow")
		w.Steps = append(w.Steps, model.WorkflowStep{Name: "b", Kind: model.StepCode, Code: "export default {run(){}}"})
		created, err := b.CreateWorkflow(ctx, w, nil)
		wantErr(t, "CreateWorkflow", err, nil)
		step := created.Steps[1]
		step.Props = map[string]json.RawMessage{"n": json.RawMessage(`2`)}
		got, err := b.SetWorkflowStep(ctx, "p_1", step, 1_800_000_000)
		wantErr(t, "SetWorkflowStep", err, nil)
		stored, err := b.GetWorkflow(ctx, "p_1")
		wantErr(t, "GetWorkflow", err, nil)
		switch {
		case got.Version != created.Version+1 || stored.Version != got.Version:
			t.Errorf("version %d (stored %d), want %d", got.Version, stored.Version, created.Version+1)
		case string(stored.Steps[1].Props["n"]) != "2" || stored.Steps[0].Props != nil || len(stored.Steps) != 2:
			t.Errorf("steps after the change: %+v", stored.Steps)
		case stored.UpdatedAt != 1_800_000_000 || stored.Name != "flow" || stored.Trigger.Type != model.TriggerManual:
			t.Errorf("the rest of the workflow changed: %+v", stored)
		}
		_, err = b.SetWorkflowStep(ctx, "p_1", model.WorkflowStep{Name: "nosuch"}, 1)
		wantErr(t, "SetWorkflowStep of no such step", err, ErrNotFound)
		_, err = b.SetWorkflowStep(ctx, "p_2", step, 1)
		wantErr(t, "SetWorkflowStep of no such workflow", err, ErrNotFound)
	})
}
