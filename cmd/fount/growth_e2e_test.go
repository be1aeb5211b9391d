package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/store"
)

// The attacks of unbounded growth inside one run or source, each against
// a real server: a source that fills $in with delayed emits, one that
// emits to a hundred thousand channels, one that throws a 7 MB error, a
// manual run with a 4.9 MB event, and a run that prints empty lines.

// storedAfterStop stops s and opens its store, to read what it holds.
//
// Its tests run on bbolt whatever FOUNT_TEST_STORE says (storeURL "bolt"):
// they read the file.
func storedAfterStop(t *testing.T, s *testServer, dir string) *store.Bolt {
	t.Helper()
	s.stop()
	st, err := store.OpenBolt(filepath.Join(dir, "fount.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestDelayedEmitsAreTrimmed: $in keeps the newest --events-kept delayed
// emits like any channel (it kept every one: 20,000 after as many runs).
func TestDelayedEmitsAreTrimmed(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, EventsKept: 5})
	src := s.deploySource(`export default { name: "Filler", version: "1", run(e) {
		for (let i = 0; i < e.n; i++) this.$emit({ i }, { delivery_ts: Date.now() + 3600000 })
		this.$emit("done", { name: "done" }) } }`, nil)
	id := src["id"].(string)
	for run := 1; run <= 3; run++ {
		s.run(id, map[string]any{"n": 20})
		s.events(id, "done", run)
		if waiting := s.events(id, "$in", 1); len(waiting) != 5 {
			t.Errorf("after run %d, $in holds %d delayed emits, want 5", run, len(waiting))
		}
	}
}

// TestChannelsAreBounded: one run adds at most 20 channels and a source
// has at most --channels-per-source (100); emits past them are dropped,
// each run that dropped some gets an $errors event naming the limits, and
// the rest of the run is stored.
func TestChannelsAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, DataDir: dir, StoreURL: "bolt"})
	src := s.deploySource(`export default { name: "Channels", version: "1", run(e) {
		for (let i = e.from; i < e.to; i++) this.$emit(i, { name: "ch" + i })
		this.$emit(e.to, { summary: "done" }) } }`, nil)
	id := src["id"].(string)
	// The attack: one run, 100,000 channels.
	s.run(id, map[string]any{"from": 0, "to": 100_000})
	errs := s.events(id, "$errors", 1)
	msg := fmt.Sprint(errs[0]["event"])
	for _, want := range []string{"ChannelLimitError", "99980 emits to 99980 new channels were dropped", "at most 100 channels", "at most 20"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the $errors event %.300s does not say %q", msg, want)
		}
	}
	// Five more runs of 30 new channels each fill the source's 100.
	for run := 1; run <= 5; run++ {
		s.run(id, map[string]any{"from": 100_000 * run, "to": 100_000*run + 30})
	}
	s.events(id, "", 6)
	if n := len(s.events(id, "$errors", 6)); n != 6 {
		t.Errorf("%d $errors events, want one per run", n)
	}
	st := storedAfterStop(t, s, dir)
	channels, err := st.Channels(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	channels = slices.DeleteFunc(channels, func(ch string) bool { return ch == "" || strings.HasPrefix(ch, "$") })
	if len(channels) != 100 {
		t.Errorf("the source has %d channels, want 100", len(channels))
	}
	var last []string
	for _, ch := range channels {
		if strings.HasPrefix(ch, "ch5000") {
			last = append(last, ch)
		}
	}
	if len(last) != 0 {
		t.Errorf("the last run, over the source's limit, added channels %q", last)
	}
}

// eventSize is the size of an event's JSON as the API shows it.
func eventSize(t *testing.T, ev map[string]any) int {
	return len(mustMarshal(t, ev["event"]))
}

// TestErrorEventsAreBounded: a thrown 7 MB message and a 1 MB stack are
// cut to 8 KiB and 16 KiB, and an original event over 64 KiB (a 4.9 MB
// manual run) is replaced by {"truncated": true, "bytes": N}: the $errors
// event stays far below the 4 MiB emit cap.
func TestErrorEventsAreBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: ownerKey})
	src := s.deploySource(`export default { name: "Thrower", version: "1", run(e) {
		const err = new Error(e.big ? "m".repeat(7000000) : "small")
		if (e.big) err.stack = "s".repeat(1000000)
		throw err } }`, nil)
	id := src["id"].(string)

	s.run(id, map[string]any{"big": true})
	ev := s.events(id, "$errors", 1)[0]
	e := ev["event"].(map[string]any)["error"].(map[string]any)
	msg, stack := fmt.Sprint(e["message"]), fmt.Sprint(e["stack"])
	if !strings.HasPrefix(msg, "mmm") || len(msg) > 8<<10+64 || !strings.Contains(msg, "[truncated: 7000000 bytes in all]") {
		t.Errorf("message of %d bytes: %.40q...%q", len(msg), msg, msg[max(0, len(msg)-40):])
	}
	if !strings.HasPrefix(stack, "sss") || len(stack) > 16<<10+64 || !strings.Contains(stack, "[truncated: 1000000 bytes in all]") {
		t.Errorf("stack of %d bytes: %.40q...%q", len(stack), stack, stack[max(0, len(stack)-40):])
	}
	if n := eventSize(t, ev); n > 64<<10 {
		t.Errorf("the $errors event has %d bytes", n)
	}

	big := strings.Repeat("x", 4_900_000)
	s.run(id, map[string]any{"payload": big})
	ev = s.events(id, "$errors", 2)[0]
	original, _ := json.Marshal(ev["event"].(map[string]any)["original_event"])
	if want := fmt.Sprintf(`{"bytes":%d,"truncated":true}`, len(big)+len(`{"payload":""}`)); string(original) != want {
		t.Errorf("original_event = %.200s, want %s", original, want)
	}
	if n := eventSize(t, ev); n > 64<<10 {
		t.Errorf("the $errors event has %d bytes", n)
	}
}

// TestConsoleLinesAreBounded: a run printing 20,000 empty lines (which
// the sandbox's byte cap on console output lets through) keeps 1,000 and
// a line that says the rest was dropped.
func TestConsoleLinesAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, server.Config{BootstrapKey: ownerKey, DataDir: dir, StoreURL: "bolt", EventsKept: 50_000})
	src := s.deploySource(`export default { name: "Printer", version: "1", run() {
		for (let i = 0; i < 20000; i++) console.log()
		this.$emit("done") } }`, nil)
	id := src["id"].(string)
	s.run(id, nil)
	s.events(id, "", 1)
	st := storedAfterStop(t, s, dir)
	logs, err := st.ListEvents(context.Background(), id, "$logs", 50_000)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1001 || !strings.Contains(string(logs[0].Data), "console lines past 1000 in one run were dropped") {
		t.Errorf("%d console lines stored, the newest %s; want 1,001 with a notice", len(logs), logs[0].Data)
	}
}
