package host

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

func TestLogLimit(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, src(`run() { for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "x".repeat(100)); console.log("x".repeat(100000)); return "finished" }`), `{}`)
	rec := newRecorder()
	out, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpRun, Limits: sandbox.Limits{LogBytes: 10 << 10}}, rec.caps())
	if err != nil || string(out.Value) != `"finished"` {
		t.Fatalf("a run over its log budget must still finish: %v %v", err, out)
	}
	total := 0
	for _, l := range rec.logs[:len(rec.logs)-1] {
		total += len(l.Text)
	}
	if total > 10<<10 {
		t.Errorf("kept %d bytes of logs, limit %d", total, 10<<10)
	}
	last := rec.logs[len(rec.logs)-1]
	if last.Level != "warn" || !strings.Contains(last.Text, "over the invocation's limit was dropped") {
		t.Errorf("last log = %+v, want one truncation notice", last)
	}
	for _, l := range rec.logs {
		if len(l.Text) > abi.MaxLogLine {
			t.Errorf("a log line of %d bytes exceeds MaxLogLine", len(l.Text))
		}
	}
}

func TestRespondLimit(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, src(`props: { http: { type: "$.interface.http", customResponse: true } },
		run(e) { this.http.respond({ status: 200, body: "b".repeat(e.n) }) }`), `{}`)
	for _, tt := range []struct {
		n      string
		wantOK bool
	}{{"1024", true}, {"1025", false}} {
		rec := newRecorder()
		_, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpRun, Event: []byte(`{"n":` + tt.n + `}`), Limits: sandbox.Limits{RespondBytes: 1024}}, rec.caps())
		var se *sandbox.ScriptError
		if tt.wantOK && (err != nil || len(rec.responses) != 1) {
			t.Errorf("body of %s bytes: %v", tt.n, err)
		}
		if !tt.wantOK && (!errors.As(err, &se) || !strings.Contains(se.Message, "over the size limit") || len(rec.responses) != 0) {
			t.Errorf("body of %s bytes over a 1024 cap: err = %v, responses %d", tt.n, err, len(rec.responses))
		}
	}
}

// TestDefaultMemoryLimit: with default limits a memory bomb ends in
// sandbox.ErrOutOfMemory, whether the JS heap limit or the wasm memory cap is hit
// first.
func TestDefaultMemoryLimit(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, src(`run() { const a = []; for (;;) a.push(new Array(1 << 16).fill(a.length)) }`), `{}`)
	_, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpRun, Limits: sandbox.Limits{Timeout: 3 * time.Minute}}, sandbox.Capabilities{}) // filling 64 MiB is slow under -race on a loaded machine; the test wants the memory limit, not the deadline
	if !errors.Is(err, sandbox.ErrOutOfMemory) {
		t.Fatalf("err = %v, want sandbox.ErrOutOfMemory", err)
	}
	if out, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpHook, Hook: "deploy"}, sandbox.Capabilities{}); err != nil {
		t.Fatalf("the source serves after an out-of-memory: %v %v", err, out)
	}
}
