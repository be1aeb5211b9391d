package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// statsT0 is a minute boundary the statistics tests start at.
var statsT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func TestStatsCountCommits(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, statsT0.UnixMilli())
		ev := func(name string) model.Event {
			return model.Event{Name: name, Data: json.RawMessage(`{}`)}
		}
		runs := []struct {
			at      time.Duration
			events  []model.Event
			outcome *model.RunOutcome
		}{
			{0, []model.Event{ev(""), ev("")}, &model.RunOutcome{Duration: 10 * time.Millisecond}},
			{30 * time.Second, []model.Event{ev("named")}, &model.RunOutcome{Duration: 40 * time.Millisecond}},
			{70 * time.Second, []model.Event{ev(model.ChannelErrors)}, &model.RunOutcome{Failed: true, Duration: 400 * time.Millisecond}},
			{2 * time.Minute, []model.Event{ev("$logs"), ev(model.ChannelDelayed)}, nil}, // neither counted
		}
		for _, r := range runs {
			clock.set(statsT0.Add(r.at))
			inv := mustEnqueue(t, b, "dc_1")
			_, err := b.CompleteRuns(ctx, []CompletedRun{{Invocation: inv, Commit: RunCommit{Events: r.events, Outcome: r.outcome}}})
			wantErr(t, "CompleteRuns", err, nil)
		}
		// A workflow's execution counts once it has ended.
		for _, status := range []string{model.ExecutionPaused, model.ExecutionSuccess, model.ExecutionError} {
			inv := mustEnqueue(t, b, "p_1")
			x := &model.Execution{ID: ids.ExecutionID("p_1", inv.ID), WorkflowID: "p_1", Status: status, DurationMs: 5}
			_, err := b.CompleteRun(ctx, inv, RunCommit{Execution: x})
			wantErr(t, "CompleteRun", err, nil)
		}

		points, err := b.StatsOf(ctx, "dc_1", statsT0, statsT0.Add(3*time.Minute), time.Minute)
		wantErr(t, "StatsOf", err, nil)
		want := []struct{ events, errors, runs, failed int64 }{{3, 0, 2, 0}, {0, 1, 1, 1}, {0, 0, 0, 0}}
		if len(points) != len(want) {
			t.Fatalf("StatsOf = %d points, want %d", len(points), len(want))
		}
		for i, w := range want {
			p := points[i]
			if p.Events != w.events || p.Errors != w.errors || p.Runs != w.runs || p.RunsFailed != w.failed {
				t.Errorf("minute %d = %+v, want %+v", i, p, w)
			}
		}
		if got := points[0].RunTime.Quantile(0.5); got < 9*time.Millisecond || got > 11*time.Millisecond {
			t.Errorf("minute 0's p50 run = %s, want about 10ms", got)
		}
		if got := points[1].RunTime.Quantile(0.95); got < 350*time.Millisecond || got > 450*time.Millisecond {
			t.Errorf("minute 1's p95 run = %s, want about 400ms", got)
		}
		// One step over the three minutes sums them.
		points, err = b.StatsOf(ctx, "dc_1", statsT0, statsT0.Add(3*time.Minute), 5*time.Minute)
		wantErr(t, "StatsOf", err, nil)
		if len(points) != 1 || points[0].Events != 3 || points[0].Runs != 3 || points[0].RunTime.Count() != 3 {
			t.Errorf("StatsOf one step = %+v", points)
		}
		wf, err := b.StatsOf(ctx, "p_1", statsT0, statsT0.Add(time.Hour), time.Hour)
		wantErr(t, "StatsOf", err, nil)
		if wf[0].Runs != 2 || wf[0].RunsFailed != 1 {
			t.Errorf("the workflow's executions = %d (%d failed), want 2 (1 failed)", wf[0].Runs, wf[0].RunsFailed)
		}
	})
}

func TestStatsCountDeliveries(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, statsT0.UnixMilli())
		wantErr(t, "CreateWebhook", b.CreateWebhook(ctx, model.Webhook{ID: "wh_1", OwnerID: "u_a", URL: "http://x", Active: true}), nil)
		ds, err := b.EnqueueDeliveries(ctx, []model.Delivery{{ListenerID: "wh_1", EmitterID: "dc_1", EventID: "1-1", Payload: json.RawMessage(`{}`)}})
		wantErr(t, "EnqueueDeliveries", err, nil)
		d := ds[0]
		clock.set(statsT0.Add(2 * time.Second))
		d.Attempts = append(d.Attempts, model.Attempt{AtMs: clock.now().UnixMilli(), Status: 500, DurationMs: 20})
		d.Status = model.DeliveryPending
		wantErr(t, "UpdateDelivery", b.UpdateDelivery(ctx, d), nil)
		clock.set(statsT0.Add(5 * time.Second))
		d.Attempts = append(d.Attempts, model.Attempt{AtMs: clock.now().UnixMilli(), Status: 200, DurationMs: 30})
		d.Status = model.DeliveryDelivered
		wantErr(t, "UpdateDelivery", b.UpdateDelivery(ctx, d), nil)
		// A rewrite that adds no attempt counts nothing.
		wantErr(t, "UpdateDelivery", b.UpdateDelivery(ctx, d), nil)

		points, err := b.StatsOf(ctx, "wh_1", statsT0, statsT0.Add(time.Minute), time.Minute)
		wantErr(t, "StatsOf", err, nil)
		p := points[0]
		if p.Delivered != 1 || p.DeliveryFailures != 1 || p.Latency.Count() != 1 {
			t.Fatalf("the webhook's minute = %+v, want 1 delivered, 1 failure, 1 latency", p)
		}
		if got := p.Latency.Quantile(0.5); got < 4500*time.Millisecond || got > 5500*time.Millisecond {
			t.Errorf("latency = %s, want about 5.03s (queued to answered)", got)
		}
		// Deleting the webhook deletes its statistics.
		err = b.DeleteWebhook(ctx, "wh_1")
		wantErr(t, "DeleteWebhook", err, nil)
		points, err = b.StatsOf(ctx, "wh_1", statsT0, statsT0.Add(time.Minute), time.Minute)
		wantErr(t, "StatsOf", err, nil)
		if !points[0].IsZero() {
			t.Errorf("statistics after the delete = %+v", points[0])
		}
	})
}

func TestStatsKeptAndDeleted(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, statsT0.UnixMilli())
		mustFixtureComponent(t, b)
		wantErr(t, "CreateSource", createSource(ctx, b, model.Source{ID: "dc_s", OwnerID: "u_a", ComponentID: "sc_fixture", Active: true}), nil)
		run := func(at time.Time) {
			t.Helper()
			clock.set(at)
			inv := mustEnqueue(t, b, "dc_s")
			_, err := b.CompleteRun(ctx, inv, RunCommit{Events: []model.Event{{Data: json.RawMessage(`1`)}}, Outcome: &model.RunOutcome{}})
			wantErr(t, "CompleteRun", err, nil)
		}
		eventsIn := func(from time.Time) int64 {
			t.Helper()
			points, err := b.StatsOf(ctx, "dc_s", from, from.Add(time.Hour), time.Hour)
			wantErr(t, "StatsOf", err, nil)
			return points[0].Events
		}
		run(statsT0)
		run(statsT0.Add(DefaultStatsKept - time.Hour)) // within the week: the first hour stays
		if got := eventsIn(statsT0); got != 1 {
			t.Fatalf("the first hour after 6 days 23 h = %d events, want 1", got)
		}
		run(statsT0.Add(DefaultStatsKept + time.Hour)) // past it: the first hour goes
		if got := eventsIn(statsT0); got != 0 {
			t.Errorf("the first hour after 7 days 1 h = %d events, want 0 (trimmed)", got)
		}
		if got := eventsIn(statsT0.Add(DefaultStatsKept - time.Hour)); got != 1 {
			t.Errorf("the hour 6 days 23 h in = %d events, want 1", got)
		}
		wantErr(t, "DeleteSource", deleteSource(ctx, b, "dc_s"), nil)
		if got := eventsIn(statsT0.Add(DefaultStatsKept + time.Hour)); got != 0 {
			t.Errorf("statistics after the source's delete = %d events, want 0", got)
		}
	})
}

func TestStatsOfRefusesBadRanges(t *testing.T) {
	t.Parallel()
	b := openTestBolt(t)
	tests := []struct {
		name     string
		from, to time.Time
		step     time.Duration
	}{
		{"empty range", statsT0, statsT0, time.Minute},
		{"backwards", statsT0, statsT0.Add(-time.Hour), time.Minute},
		{"step under a minute", statsT0, statsT0.Add(time.Hour), time.Second},
		{"step not whole minutes", statsT0, statsT0.Add(time.Hour), 90 * time.Second},
		{"too many points", statsT0, statsT0.Add(8 * 24 * time.Hour), time.Minute},
	}
	for _, tt := range tests {
		if _, err := b.StatsOf(ctx, "dc_1", tt.from, tt.to, tt.step); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestWithStatsKeptZeroCountsNothing(t *testing.T) {
	t.Parallel()
	b := openTestBolt(t, WithStatsKept(0))
	inv := mustEnqueue(t, b, "dc_1")
	_, err := b.CompleteRun(ctx, inv, RunCommit{Events: []model.Event{{Data: json.RawMessage(`1`)}}, Outcome: &model.RunOutcome{}})
	wantErr(t, "CompleteRun", err, nil)
	now := time.Now()
	points, err := b.StatsOf(ctx, "dc_1", now.Add(-time.Hour), now.Add(time.Minute), time.Hour)
	wantErr(t, "StatsOf", err, nil)
	for _, p := range points {
		if !p.IsZero() {
			t.Errorf("a point with counting off = %+v", p)
		}
	}
}

func TestHourRecordCodec(t *testing.T) {
	t.Parallel()
	one := &model.Stats{Events: 2, Runs: 1}
	one.RunTime.Add(12 * time.Millisecond)
	tests := []struct {
		name    string
		minutes []uint8 // written in this order
		want    []uint8 // minutes in the record
	}{
		{"in order", []uint8{0, 1, 59}, []uint8{0, 1, 59}},
		{"same minute twice", []uint8{5, 5}, []uint8{5}},
		{"a late minute", []uint8{10, 3, 10, 4}, []uint8{3, 4, 10}},
	}
	for _, tt := range tests {
		var data []byte
		var err error
		for _, m := range tt.minutes {
			if data, err = addToHour(data, m, one); err != nil {
				t.Fatalf("%s: addToHour: %v", tt.name, err)
			}
		}
		var got []uint8
		var total model.Stats
		err = eachMinute(data, func(m uint8, s *model.Stats) { got = append(got, m); total.Add(s) })
		if err != nil {
			t.Fatalf("%s: eachMinute: %v", tt.name, err)
		}
		if !bytes.Equal(got, tt.want) {
			t.Errorf("%s: minutes %v, want %v", tt.name, got, tt.want)
		}
		if n := int64(len(tt.minutes)); total.Events != 2*n || total.Runs != n || total.RunTime.Count() != uint64(n) {
			t.Errorf("%s: total %+v, want %d writes' worth", tt.name, total, n)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, time.Microsecond, 2 * time.Microsecond, 3 * time.Microsecond, 7 * time.Microsecond,
		100 * time.Microsecond, time.Millisecond, 999 * time.Millisecond, 5 * time.Second, 123 * time.Minute} {
		var h model.Histogram
		h.Add(d)
		if got := h.Quantile(0.5); float64(got) < 0.85*float64(d) || float64(got) > 1.15*float64(d) {
			t.Errorf("a histogram of %s: p50 = %s, want within 15%%", d, got)
		}
	}
	var h model.Histogram
	for ms := 1; ms <= 100; ms++ {
		h.Add(time.Duration(ms) * time.Millisecond)
	}
	if p50, p95 := h.Quantile(0.5), h.Quantile(0.95); p50 < 44*time.Millisecond || p50 > 56*time.Millisecond || p95 < 85*time.Millisecond || p95 > 105*time.Millisecond {
		t.Errorf("1..100 ms: p50 %s, p95 %s; want about 50ms and 95ms", p50, p95)
	}
}

// FuzzHourRecord checks that a stored hour record, however damaged,
// decodes or fails cleanly, that a write to it never panics, and that
// what decodes encodes to bytes that decode the same.
func FuzzHourRecord(f *testing.F) {
	s := &model.Stats{Events: 3, Errors: 1, Runs: 2, Delivered: 1}
	s.RunTime.Add(7 * time.Millisecond)
	s.Latency.Add(3 * time.Second)
	seed, _ := addToHour(nil, 4, s)
	seed, _ = addToHour(seed, 9, s)
	f.Add(seed)
	f.Add([]byte{statsVersion})
	f.Add([]byte{statsVersion, 61, 0})
	reencode := func(data []byte) ([]byte, error) {
		out := []byte{statsVersion}
		err := eachMinute(data, func(m uint8, s *model.Stats) { out = appendBlock(out, m, s) })
		return out, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = addToHour(bytes.Clone(data), 30, s)
		out, err := reencode(data)
		if err != nil {
			return
		}
		again, err := reencode(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-encoded %x (%v), first re-encoded %x, from %x", again, err, out, data)
		}
	})
}

// BenchmarkStatsDay writes a day of statistics of one resource, each
// minute what a busy source's commits add (10 runs of durations spread
// over two octaves, 2 failed, 10 events, 2 errors, 10 deliveries), in
// one transaction, and reports the bytes its hour records and index
// take (per resource per day; a kept week is 7 times that) and what one
// minute's write costs beside the rest of a commit.
func BenchmarkStatsDay(b *testing.B) {
	s := openTestBolt(b)
	minute := &model.Stats{Events: 10, Errors: 2, Runs: 10, RunsFailed: 2, Delivered: 10}
	for i := range 10 {
		minute.RunTime.Add(time.Duration(200+i*60) * time.Microsecond)
		minute.Latency.Add(time.Duration(3+i) * time.Millisecond)
	}
	const minutes = 24 * 60
	day := 0
	for b.Loop() {
		id := fmt.Sprintf("dc_%d", day)
		day++
		err := s.kv.Update(ctx, func(tx kv.Tx) error {
			for m := range minutes {
				if err := s.addStats(tx, id, statsT0.Add(time.Duration(m)*time.Minute), minute); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*minutes), "ns/minute-write")
	var bytes int
	err := s.kv.View(ctx, func(tx kv.Tx) error {
		hours, err := statsHours(tx, "dc_0")
		if err != nil {
			return err
		}
		index, _, err := tx.Value(kv.Stats, "dc_0", statsIndexKey)
		bytes += len(index)
		for _, h := range hours {
			v, _, err := tx.Value(kv.Stats, "dc_0", strconv.FormatInt(h, 10))
			if err != nil {
				return err
			}
			bytes += len(v)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(bytes), "bytes/resource/day")
}

// TestDamagedStatsNeverBlock: a statistics record or index that does not
// decode neither fails the commit of runs it is part of, nor a read, nor
// the resource's delete; the next write starts it again.
func TestDamagedStatsNeverBlock(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		withClock(b, statsT0.UnixMilli())
		mustFixtureComponent(t, b)
		wantErr(t, "CreateSource", createSource(ctx, b, model.Source{ID: "dc_s", OwnerID: "u_a", ComponentID: "sc_fixture", Active: true}), nil)
		r := rulesOf(b)
		hour := strconv.FormatInt(statsT0.Unix()/3600, 10)
		for _, key := range []string{hour, statsIndexKey} {
			err := r.kv.Update(ctx, func(tx kv.Tx) error { return tx.PutValue(kv.Stats, []byte{0xff, 0xff, 0xff}, "dc_s", key) })
			wantErr(t, "damage "+key, err, nil)
			points, err := b.StatsOf(ctx, "dc_s", statsT0, statsT0.Add(time.Hour), time.Hour)
			wantErr(t, "StatsOf a damaged "+key, err, nil)
			if !points[0].IsZero() {
				t.Errorf("a damaged %s reads %+v", key, points[0])
			}
		}
		inv := mustEnqueue(t, b, "dc_s")
		_, err := b.CompleteRun(ctx, inv, RunCommit{Events: []model.Event{{Data: json.RawMessage(`1`)}}, Outcome: &model.RunOutcome{}})
		wantErr(t, "CompleteRun over damaged statistics", err, nil)
		points, err := b.StatsOf(ctx, "dc_s", statsT0, statsT0.Add(time.Hour), time.Hour)
		wantErr(t, "StatsOf", err, nil)
		if points[0].Events != 1 || points[0].Runs != 1 {
			t.Errorf("after the damage, a run counts %+v, want 1 event and 1 run", points[0])
		}
		wantErr(t, "DeleteSource", deleteSource(ctx, b, "dc_s"), nil)
	})
}

// rulesOf is the rules of a store of either backend.
func rulesOf(st any) rules {
	switch st := st.(type) {
	case *Bolt:
		return st.rules
	case *JetStream:
		return st.rules
	}
	panic(fmt.Sprintf("rulesOf a %T", st))
}

// TestStatsTrimIsBounded: a resource idle for longer than statistics are
// kept deletes its old hours a bounded number per write, and reads never
// show them meanwhile.
func TestStatsTrimIsBounded(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b testStore) {
		clock := withClock(b, statsT0.UnixMilli())
		r := rulesOf(b)
		write := func(at time.Time) {
			t.Helper()
			clock.set(at)
			err := r.kv.Update(ctx, func(tx kv.Tx) error { return r.addStats(tx, "dc_idle", at, &model.Stats{Events: 1}) })
			wantErr(t, "addStats", err, nil)
		}
		indexed := func() int {
			t.Helper()
			var n int
			err := r.kv.View(ctx, func(tx kv.Tx) error { hours, err := statsHours(tx, "dc_idle"); n = len(hours); return err })
			wantErr(t, "statsHours", err, nil)
			return n
		}
		for h := range 30 {
			write(statsT0.Add(time.Duration(h) * time.Hour))
		}
		woken := statsT0.Add(29*time.Hour + DefaultStatsKept + 2*time.Hour)
		write(woken)
		if n := indexed(); n != 30+1-maxStatsTrim {
			t.Errorf("after waking: %d hours indexed, want %d (%d trimmed)", n, 30+1-maxStatsTrim, maxStatsTrim)
		}
		points, err := b.StatsOf(ctx, "dc_idle", statsT0, statsT0.Add(30*time.Hour), 30*time.Hour)
		wantErr(t, "StatsOf", err, nil)
		if points[0].Events != 0 {
			t.Errorf("hours past keeping read as %d events, want none", points[0].Events)
		}
		write(woken.Add(time.Hour))
		if n := indexed(); n != 2 {
			t.Errorf("after the next hour: %d hours indexed, want 2", n)
		}
	})
}
