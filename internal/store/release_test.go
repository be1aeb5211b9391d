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
// execution commits only while its record is on $in, so that two runs
// resuming the same execution (a timer and a resume URL, or a release
// retried after a crash) commit it once, with or without an invocation of
// their own.
func TestResumeConsumesThePausedRecordOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		paused, err := b.AppendEvents(ctx, "p_w", []model.Event{
			{Name: model.ChannelDelayed, Data: json.RawMessage(`{"x":1}`)},
			{Name: model.ChannelDelayed, Data: json.RawMessage(`{"x":2}`)},
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		resumed := func(n int, id string) CompletedRun {
			return CompletedRun{Invocation: model.Invocation{TargetID: "p_w"}, Commit: RunCommit{
				Resume: id, Events: []model.Event{{Name: "done", Data: json.RawMessage(strconv.Itoa(n))}},
				Execution: &model.Execution{ID: ids.ExecutionID("p_w", strconv.Itoa(n)), WorkflowID: "p_w"},
			}}
		}
		rel, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "release"})
		out, err := b.CompleteRuns(ctx, []CompletedRun{resumed(1, paused[0].ID), resumed(2, paused[0].ID), {Invocation: rel}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out[0]) != 1 || out[1] != nil {
			t.Fatalf("results %+v: want the first resume stored and the second, of the same record, not", out)
		}
		// A resume URL's invocation for a record already resumed: it goes
		// with nothing of its run.
		late, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		if _, err := b.CompleteRun(ctx, late, resumed(3, paused[0].ID).Commit); err != nil {
			t.Fatal(err)
		}
		other, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_w", Kind: "resume"})
		if _, err := b.CompleteRun(ctx, other, resumed(4, paused[1].ID).Commit); err != nil {
			t.Fatal(err)
		}
		evs, _ := b.ListEvents(ctx, "p_w", "done", 10)
		if len(evs) != 2 || string(evs[0].Data)+string(evs[1].Data) != "41" && string(evs[0].Data)+string(evs[1].Data) != "14" {
			t.Errorf("done events %+v, want runs 1 and 4 only", evs)
		}
		if left, _ := b.ListEvents(ctx, "p_w", model.ChannelDelayed, 10); len(left) != 0 {
			t.Errorf("$in still holds %d paused records", len(left))
		}
		if pending, _ := b.PendingInvocations(ctx, "p_w", 10); len(pending) != 0 {
			t.Errorf("%d invocations still queued", len(pending))
		}
		if _, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: model.Invocation{TargetID: "p_w"}}}); err == nil {
			t.Error("a run with neither an invocation nor a resumed execution was accepted")
		}
	})
}

// TestKeepDelayedBoundsOnlyTheDelayedChannel: a workflow's paused
// executions on $in are kept to their own bound, while its other
// channels are trimmed to Keep in the same commit.
func TestKeepDelayedBoundsOnlyTheDelayedChannel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		for i := range 4 {
			inv, _ := b.EnqueueInvocation(ctx, model.Invocation{TargetID: "p_k", Kind: "manual"})
			_, err := b.CompleteRun(ctx, inv, RunCommit{Keep: 2, KeepDelayed: 3, Events: []model.Event{
				{Name: model.ChannelDelayed, Data: json.RawMessage(strconv.Itoa(i))},
				{Name: "out", Data: json.RawMessage(strconv.Itoa(i))},
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if evs, _ := b.ListEvents(ctx, "p_k", model.ChannelDelayed, 10); len(evs) != 3 {
			t.Errorf("$in keeps %d, want its own bound of 3", len(evs))
		}
		if evs, _ := b.ListEvents(ctx, "p_k", "out", 10); len(evs) != 2 {
			t.Errorf("out keeps %d, want Keep's 2", len(evs))
		}
	})
}

// TestResumeTrimsNothing: resuming one of many paused executions, with a
// commit whose Keep is far below how many wait, leaves the others on $in.
func TestResumeTrimsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, b testStore) {
		var waiting []model.Event
		for range 8 {
			waiting = append(waiting, model.Event{Name: model.ChannelDelayed, Data: json.RawMessage(`{}`)})
		}
		paused, err := b.AppendEvents(ctx, "p_t", waiting, 100)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.CompleteRuns(ctx, []CompletedRun{{Invocation: model.Invocation{TargetID: "p_t"}, Commit: RunCommit{
			Resume: paused[0].ID, Keep: 2, Events: []model.Event{{Name: "done", Data: json.RawMessage(`1`)}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := b.ListEvents(ctx, "p_t", model.ChannelDelayed, 100); len(left) != 7 {
			t.Errorf("$in holds %d after one resume, want the 7 others", len(left))
		}
	})
}
