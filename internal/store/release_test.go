package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/fount-dev/fount/internal/ids"

	"github.com/fount-dev/fount/internal/model"
)

func TestCompleteRunsAndRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		var waiting []model.Event
		for range 5 {
			waiting = append(waiting, model.Event{Name: model.ChannelDelayed, Data: json.RawMessage(`{}`)})
		}
		stored, err := b.AppendEvents(ctx, "dc_r", waiting, 0)
		if err != nil {
			t.Fatal(err)
		}
		if evs, _ := b.ListEvents(ctx, "dc_r", model.ChannelDelayed, 100); len(evs) != 5 {
			t.Fatalf("$in holds %d events, want all 5", len(evs))
		}
		// Cancel one, then release three including the cancelled one.
		if _, err := b.DeleteEvents(ctx, "dc_r", model.ChannelDelayed, stored[1].ID, stored[1].ID); err != nil {
			t.Fatal(err)
		}
		a, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_r", Kind: "release"})
		gone := model.Invocation{ID: "999999", TargetID: "dc_r"}
		rel, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_r", Kind: "release"})
		out, err := b.CompleteRuns(ctx, []CompletedRun{
			{Invocation: a, Commit: RunCommit{Events: []model.Event{{Name: "x", Data: json.RawMessage(`1`)}}}},
			{Invocation: gone, Commit: RunCommit{Events: []model.Event{{Name: "x", Data: json.RawMessage(`2`)}}}},
			{Invocation: rel, Commit: RunCommit{
				Events:  []model.Event{{Name: "later", Data: json.RawMessage(`"a"`)}, {Name: "later", Data: json.RawMessage(`"b"`)}, {Name: "later", Data: json.RawMessage(`"c"`)}},
				Release: []string{stored[0].ID, stored[1].ID, stored[2].ID},
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out[0]) != 1 || out[1] != nil || len(out[2]) != 2 || string(out[2][1].Data) != `"c"` {
			t.Fatalf("results: %+v", out)
		}
		if evs, _ := b.ListEvents(ctx, "dc_r", model.ChannelDelayed, 100); len(evs) != 2 {
			t.Errorf("$in holds %d after the release, want 2", len(evs))
		}
		if evs, _ := b.ListEvents(ctx, "dc_r", "later", 100); len(evs) != 2 {
			t.Errorf("released %d events, want 2 (the cancelled one is not emitted)", len(evs))
		}
		if pending, _ := b.PendingInvocations(ctx, "dc_r", 10); len(pending) != 0 {
			t.Errorf("%d invocations still queued", len(pending))
		}
		fresh, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_r", Kind: "release"})
		_, err = b.CompleteRuns(ctx, []CompletedRun{{Invocation: fresh, Commit: RunCommit{Events: []model.Event{{}}, Release: []string{"a", "b"}}}})
		if err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("mismatched release ids: %v", err)
		}
	})
}

func mustWebhook(t *testing.T, b testStore, id string) {
	t.Helper()
	if err := b.CreateWebhook(context.Background(), model.Webhook{ID: id, OwnerID: "u_1", URL: "https://example.com", Active: true}); err != nil {
		t.Fatal(err)
	}
}

// TestRoutedDeliveryToAMissingWebhookIsSkipped: a webhook deleted between
// routing and commit gets no delivery that could never be sent.
func TestRoutedDeliveryToAMissingWebhookIsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		mustWebhook(t, b, "wh_here")
		inv, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_s", Kind: "manual"})
		_, err := b.CompleteRun(ctx, inv, RunCommit{Events: []model.Event{{Data: json.RawMessage(`1`)}}, Route: func(model.Event) Routed {
			return Routed{Deliveries: []model.Delivery{{ListenerID: "wh_here"}, {ListenerID: "wh_gone"}}}
		}})
		if err != nil {
			t.Fatal(err)
		}
		due := dueIndex(t, b, 1<<62)
		if len(due) != 1 || due[0].ListenerID != "wh_here" {
			t.Fatalf("due = %+v, want only wh_here's", due)
		}
	})
}

// TestResumeConsumesThePausedRecordOnce: a run that resumes a paused
// execution commits only while it is paused, so that two runs resuming
// the same execution (a timer and a resume URL, or a release retried
// after a crash) commit it once, with or without an invocation of their
// own.
func TestResumeConsumesThePausedRecordOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		for _, x := range []string{"ex_w-a", "ex_w-b"} {
			inv, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "manual"})
			if _, err := b.CompleteRun(ctx, inv, RunCommit{Pause: paused(x, 1, "")}); err != nil {
				t.Fatal(err)
			}
		}
		resumed := func(n int, id string) CompletedRun {
			return CompletedRun{Invocation: model.Invocation{TargetID: "p_w"}, Commit: RunCommit{
				Resume: id, Events: []model.Event{{Name: "done", Data: json.RawMessage(strconv.Itoa(n))}},
				Execution: &model.Execution{ID: ids.ExecutionID("p_w", strconv.Itoa(n)), WorkflowID: "p_w"},
			}}
		}
		rel, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "release"})
		out, err := b.CompleteRuns(ctx, []CompletedRun{resumed(1, "ex_w-a"), resumed(2, "ex_w-a"), {Invocation: rel}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out[0]) != 1 || out[1] != nil {
			t.Fatalf("results %+v: want the first resume stored and the second, of the same execution, not", out)
		}
		// A resume URL's invocation for an execution already resumed: it
		// goes with nothing of its run.
		late, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		if _, err := b.CompleteRun(ctx, late, resumed(3, "ex_w-a").Commit); err != nil {
			t.Fatal(err)
		}
		other, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		if _, err := b.CompleteRun(ctx, other, resumed(4, "ex_w-b").Commit); err != nil {
			t.Fatal(err)
		}
		evs, _ := b.ListEvents(ctx, "p_w", "done", 10)
		if len(evs) != 2 || string(evs[0].Data)+string(evs[1].Data) != "41" && string(evs[0].Data)+string(evs[1].Data) != "14" {
			t.Errorf("done events %+v, want runs 1 and 4 only", evs)
		}
		if n, _ := b.CountPaused(ctx, "p_w"); n != 0 {
			t.Errorf("%d executions still paused", n)
		}
		if pending, _ := b.PendingInvocations(ctx, "p_w", 10); len(pending) != 0 {
			t.Errorf("%d invocations still queued", len(pending))
		}
		if _, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: model.Invocation{TargetID: "p_w"}}}); err == nil {
			t.Error("a run with neither an invocation nor a resumed execution was accepted")
		}
	})
}
