package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	boltengine "github.com/fount-dev/fount/internal/store/internal/bolt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// BenchmarkAppendEvents appends one event at a time to a channel that is
// full (keep 100), the steady state of an emitting source.
func BenchmarkAppendEvents(b *testing.B) {
	s := openTestBolt(b)
	ev := []model.Event{{Data: json.RawMessage(`{"title":"hello","n":1}`)}}
	for range 100 {
		if _, err := s.AppendEvents(ctx, "dc_1", ev, 100); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := s.AppendEvents(ctx, "dc_1", ev, 100); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendEventsKept appends one event at a time to a full channel
// that keeps 100 events (the default) and one that keeps 100,000
// (--events-kept 100000): trimming must cost what it deletes, not what
// the channel keeps, so the two are within 15% of each other.
func BenchmarkAppendEventsKept(b *testing.B) {
	for _, keep := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("keep=%d", keep), func(b *testing.B) {
			s := openTestBolt(b)
			fill := make([]model.Event, keep)
			for i := range fill {
				fill[i] = model.Event{Data: json.RawMessage(`{"title":"hello","n":1}`)}
			}
			if _, err := s.AppendEvents(ctx, "dc_1", fill, keep); err != nil {
				b.Fatal(err)
			}
			ev := []model.Event{{Data: json.RawMessage(`{"title":"hello","n":1}`)}}
			for b.Loop() {
				if _, err := s.AppendEvents(ctx, "dc_1", ev, keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommitStall measures how long another tenant's write (an
// invocation queued, what an HTTP request to its endpoint waits for)
// waits while one source's large results are committed, with commits in
// bounded transactions (split) and in one (whole, as before). Reported:
// the other tenant's slowest and 99th-percentile write, and the large
// commit's own time (ns/op includes building the store and the events).
func BenchmarkCommitStall(b *testing.B) {
	small := json.RawMessage(`{"n":12345,"title":"hello"}`)
	large := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	for _, tc := range []struct {
		name              string
		runs, events, chs int
		data              json.RawMessage
	}{
		{"100k-events-one-run", 1, 100_000, 20, small},
		{"12MiB-three-runs", 3, 4, 1, large}, // a batch as the engine bounds it
	} {
		for _, split := range []bool{true, false} {
			name := tc.name + "/whole"
			if split {
				name = tc.name + "/split"
			}
			b.Run(name, func(b *testing.B) {
				var stalls []time.Duration
				var commits time.Duration
				for range b.N {
					s, c := commitStall(b, split, tc.runs, tc.events, tc.chs, tc.data)
					stalls = append(stalls, s...)
					commits += c
				}
				slices.Sort(stalls)
				b.ReportMetric(float64(stalls[len(stalls)-1].Microseconds())/1000, "stall-max-ms")
				b.ReportMetric(float64(stalls[len(stalls)*99/100].Microseconds())/1000, "stall-p99-ms")
				b.ReportMetric(float64(commits.Microseconds())/1000/float64(b.N), "commit-ms")
			})
		}
	}
}

// commitStall commits runs of events (on chs channels) for one source
// while another queues invocations one at a time, and returns the other's
// write latencies and the commit's time.
func commitStall(b *testing.B, split bool, runs, events, chs int, data json.RawMessage) ([]time.Duration, time.Duration) {
	s := openTestBolt(b)
	if !split {
		boltengine.Inspect(s.Engine).SetTxBounds(0, 0)
	}
	var batch []CompletedRun
	for range runs {
		inv, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_big", Kind: "manual"})
		if err != nil {
			b.Fatal(err)
		}
		evs := make([]model.Event, events)
		for i := range evs {
			evs[i] = model.Event{Name: fmt.Sprint("ch", i%chs), EmitID: "0123456789abcdefghij", Data: data}
		}
		batch = append(batch, CompletedRun{Invocation: inv, Commit: RunCommit{Events: evs, Keep: 100}})
	}
	stop := make(chan struct{})
	done := make(chan []time.Duration)
	go func() {
		var lat []time.Duration
		for {
			select {
			case <-stop:
				done <- lat
				return
			default:
			}
			start := time.Now()
			if _, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_other", Kind: "http"}); err != nil {
				b.Error(err)
			}
			lat = append(lat, time.Since(start))
		}
	}()
	start := time.Now()
	if _, err := s.CompleteRuns(ctx, batch); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	close(stop)
	return <-done, took
}

// BenchmarkDueDeliveriesPastABacklog: one poll of the deliverer (16
// deliveries, one per listener) when one listener has a backlog of 100,000
// pending deliveries and 100 others have one each. The backlog costs one
// index key per poll, not 100,000. (The backlog is past the server's bound
// of pending deliveries, which this lifts: a file written before the
// bound, or with a larger one.)
func BenchmarkDueDeliveriesPastABacklog(b *testing.B) {
	s := openTestBolt(b)
	boltengine.Inspect(s.Engine).SetDeliveryBounds(kv.DeliveriesKept, 0)
	err := s.Update(ctx, func(tx kv.Tx) error {
		for range 100_000 {
			if _, err := tx.CreateDelivery(1, model.Delivery{ListenerID: "wh_dead", Payload: json.RawMessage(`{}`)}); err != nil {
				return err
			}
		}
		for i := range 100 {
			if _, err := tx.CreateDelivery(2, model.Delivery{ListenerID: fmt.Sprintf("wh_%03d", i), Payload: json.RawMessage(`{}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	after := ""
	for b.Loop() {
		due, err := s.DueDeliveries(ctx, 10, after, 16, nil)
		if err != nil || len(due) != 16 {
			b.Fatalf("DueDeliveries = %d deliveries, %v", len(due), err)
		}
		after = due[len(due)-1].ListenerID
	}
}

// BenchmarkEnqueueInvocation queues invocations, as HTTP requests to
// endpoints do, from one writer at a time (each waits for its fsync:
// p50-ms is its latency) and from 32 at once (ns/op over all of them:
// the throughput of grouped commits).
func BenchmarkEnqueueInvocation(b *testing.B) {
	b.Run("writers=1", func(b *testing.B) {
		s := openTestBolt(b)
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_1", Kind: "http"}); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	})
	b.Run("writers=32", func(b *testing.B) {
		s := openTestBolt(b)
		b.SetParallelism(16) // 32 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_1", Kind: "http"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkCompleteBatch commits a batch of 256 runs of one source, each
// with one event, its usage and its dedupe state, as the engine commits a
// source's batch, on each backend: runs/s is the rate one source's work
// is stored at, and the gap between the backends is what a cluster pays.
func BenchmarkCompleteBatch(b *testing.B) {
	const runs = 256
	for _, backend := range testBackends {
		b.Run(backend.name, func(b *testing.B) {
			st := backend.open(b).(testStore)
			committed := 0
			for b.Loop() {
				b.StopTimer()
				for range runs {
					if _, err := st.EnqueueInvocation(ctx, model.Invocation{TargetID: "dc_1", Kind: "http", Event: json.RawMessage(`{"n":1}`)}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				invs, err := st.PendingInvocations(ctx, "dc_1", runs)
				if err != nil || len(invs) != runs {
					b.Fatalf("PendingInvocations: %d, %v", len(invs), err)
				}
				batch := make([]CompletedRun, len(invs))
				for i, inv := range invs {
					batch[i] = CompletedRun{Invocation: inv, Commit: RunCommit{
						Events: []model.Event{{Data: json.RawMessage(`{"title":"hello","n":1}`)}}, Keep: 100,
						Dedupe: &model.DedupeState{Last: inv.ID}, UsageAccount: "u_1", Invocations: 1, ComputeMs: 1}}
				}
				out, err := st.CompleteRuns(ctx, batch)
				if err != nil {
					b.Fatal(err)
				}
				for _, events := range out {
					committed += len(events)
				}
			}
			if committed != b.N*runs {
				b.Fatalf("%d events stored of %d", committed, b.N*runs)
			}
			b.ReportMetric(float64(committed)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkPageEvents reads a page of 100 events from the middle of a
// channel that keeps 20,000, newer than a cursor (an SSE resume) and
// older than one (paging a list), on each backend: a page must cost what
// it reads, not what the channel keeps.
func BenchmarkPageEvents(b *testing.B) {
	const kept = 20_000
	for _, backend := range testBackends {
		b.Run(backend.name, func(b *testing.B) {
			st := backend.open(b).(testStore)
			var ids []string
			for range kept / 200 {
				in := make([]model.Event, 200)
				for i := range in {
					in[i] = model.Event{Data: json.RawMessage(`{"title":"hello","n":1}`)}
				}
				out, err := st.AppendEvents(ctx, "dc_1", in, kept)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range out {
					ids = append(ids, e.ID)
				}
			}
			cursor := ids[kept/2]
			for b.Loop() {
				for _, p := range []EventPage{{Limit: 100, Before: cursor}, {Limit: 100, After: cursor}} {
					evs, err := st.PageEvents(ctx, "dc_1", "", p)
					if err != nil || len(evs) != 100 {
						b.Fatalf("PageEvents %+v: %d events, %v", p, len(evs), err)
					}
				}
			}
		})
	}
}
