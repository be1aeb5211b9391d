package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/sandbox"
)

// These tests run the real-world-shaped components in ../testdata.

func TestHTTPRequestSource(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	code := readComponent(t, "http-request.mjs")
	tests := []struct {
		name       string
		props      string
		event      string
		wantStatus int
		wantEmits  int
	}{
		{"accepted", `{"http":{"endpoint_url":"http://h/1"}}`, `{"method":"POST","path":"/x","headers":{},"body":{"a":1}}`, 200, 1},
		{"method not allowed", `{}`, `{"method":"DELETE","path":"/","headers":{}}`, 405, 0},
		{"bad token", `{"token":"s3"}`, `{"method":"GET","path":"/","headers":{"x-token":"no"}}`, 401, 0},
		{"good token", `{"token":"s3"}`, `{"method":"GET","path":"/","headers":{"x-token":"s3"}}`, 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := deploy(t, h, code, tt.props)
			rec := newRecorder()
			if _, err := s.Run(context.Background(), json.RawMessage(tt.event), rec.caps()); err != nil {
				t.Fatal(err)
			}
			if len(rec.responses) != 1 || rec.responses[0].Status != tt.wantStatus || len(rec.emits) != tt.wantEmits {
				t.Fatalf("responses %+v, %d emits; want status %d and %d emits", rec.responses, len(rec.emits), tt.wantStatus, tt.wantEmits)
			}
			if tt.wantEmits == 1 && !strings.HasPrefix(rec.emits[0].Summary, "") {
				t.Errorf("summary %q", rec.emits[0].Summary)
			}
		})
	}
}

func TestFeedPollerSource(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	feed := "a|First|1000\nc|Third|3000\nb|Second|2000\nd|Fourth|4000"
	props, _ := json.Marshal(map[string]any{"feed": feed, "maxItems": 2})
	s, err := h.NewSource(context.Background(), sandbox.Spec{
		ID: "dc_feed", Code: readComponent(t, "feed-poller.mjs"), Filename: "feed-poller.mjs",
		Modules: map[string]string{"./feed-parse.mjs": readComponent(t, "feed-parse.mjs")}, Props: props,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if s.Metadata().Dedupe != "unique" {
		t.Fatalf("dedupe = %q", s.Metadata().Dedupe)
	}

	deployRec := newRecorder()
	if _, err := s.Hook(context.Background(), "deploy", deployRec.caps()); err != nil {
		t.Fatal(err)
	}
	if got := emitIDs(deployRec.emits); got != "d,c,b" {
		t.Fatalf("deploy emitted %s, want the 3 newest d,c,b", got)
	}

	rec := newRecorder()
	rec.db = deployRec.db
	if _, err := s.Run(context.Background(), json.RawMessage(`{"timestamp":1,"interval_seconds":900}`), rec.caps()); err != nil {
		t.Fatal(err)
	}
	if got := emitIDs(rec.emits); got != "d,c" {
		t.Fatalf("run emitted %s, want maxItems=2 newest d,c", got)
	}
	if rec.emits[0].Summary != "Fourth" || rec.emits[0].TS == nil || *rec.emits[0].TS != 4000 {
		t.Errorf("emit = %+v", rec.emits[0])
	}
	if string(rec.db["lastPoll"]) != "2" || len(rec.logs) != 1 || rec.logs[0].Text != "polled 2 items" {
		t.Errorf("db %v logs %+v", rec.db, rec.logs)
	}
}

func emitIDs(es []abi.Emit) string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.IDString()
	}
	return strings.Join(ids, ",")
}

func TestSendMessageAction(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	code := readComponent(t, "send-message.cjs")
	for _, tt := range []struct {
		name, props, want, exit, summary string
	}{
		{"sends", `{"channel":"general-0","text":"hi"}`, `{"channel":"general-0","text":"hi","auth":"Bearer chat-token"}`, "", `"Sent a message to general-0"`},
		{"exits early without text", `{"channel":"general-0"}`, ``, "no text to send", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := h.NewSource(context.Background(), sandbox.Spec{Code: code, Filename: "send-message.cjs", Props: json.RawMessage(tt.props)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			rec := newRecorder()
			rec.auth["chat"] = json.RawMessage(`{"oauth_access_token":"chat-token"}`)
			out, err := s.Run(context.Background(), nil, rec.caps())
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && !jsonEqual(t, out.Value, tt.want) {
				t.Errorf("value = %s, want %s", out.Value, tt.want)
			}
			if tt.exit != "" && (out.Exit == nil || *out.Exit != tt.exit) {
				t.Errorf("exit = %v, want %q", out.Exit, tt.exit)
			}
			if tt.summary != "" && string(out.Exports["$summary"]) != tt.summary {
				t.Errorf("$summary = %s", out.Exports["$summary"])
			}
		})
	}
	s := deploy(t, h, code, `{}`)
	out, err := s.Invoke(context.Background(), sandbox.Request{Op: abi.OpOptions, Prop: "channel", Page: 3}, sandbox.Capabilities{})
	if err != nil || !jsonEqual(t, out.Value, `["general-3","random-3"]`) {
		t.Fatalf("options: %v %v", err, out)
	}
}

// TestFetchEgress: fetch works only with an egress policy, and the policy
// refuses loopback unless private egress is allowed.
func TestFetchEgress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("X-Req"))
		fmt.Fprintf(w, `{"method":%q}`, r.Method)
	}))
	defer srv.Close()
	h := newTestHost(t)
	s := deploy(t, h, src(`props: { url: { type: "string" } }, async run() {
		const r = await fetch(this.url, { method: "POST", headers: { "X-Req": "r1" }, body: { a: 1 } });
		return { status: r.status, ok: r.ok, echo: r.headers.get("x-echo"), body: await r.json() } }`), fmt.Sprintf(`{"url":%q}`, srv.URL))

	_, err := s.Run(context.Background(), nil, sandbox.Capabilities{Egress: egress.New(false, time.Second, 1<<20)})
	var se *sandbox.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "not allowed for this source") {
		t.Fatalf("loopback without private egress: err = %v", err)
	}
	out, err := s.Run(context.Background(), nil, sandbox.Capabilities{Egress: egress.New(true, time.Second, 1<<20)})
	if err != nil || !jsonEqual(t, out.Value, `{"status":200,"ok":true,"echo":"r1","body":{"method":"POST"}}`) {
		t.Fatalf("with private egress: %v %v", err, out)
	}
	_, err = s.Run(context.Background(), nil, sandbox.Capabilities{Egress: egress.New(true, time.Second, 4)})
	if !errors.As(err, &se) || !strings.Contains(se.Message, "over the size limit") {
		t.Fatalf("body over the cap: err = %v", err)
	}

	// A call makes at most abi.MaxFetches requests; the next call may
	// make as many again.
	many := deploy(t, h, src(`props: { url: { type: "string" } }, async run() {
		let n = 0;
		try { for (;;) { await fetch(this.url); n++; } } catch (e) { return [n, e.message]; } }`), fmt.Sprintf(`{"url":%q}`, srv.URL))
	count := sandbox.Capabilities{Egress: sandbox.EgressFunc(func(context.Context, abi.FetchRequest) (abi.FetchResponse, error) {
		return abi.FetchResponse{Status: 204}, nil
	})}
	for range 2 {
		out, err := many.Run(context.Background(), nil, count)
		if err != nil || !strings.Contains(string(out.Value), fmt.Sprintf("[%d,", abi.MaxFetches)) || !strings.Contains(string(out.Value), "over the size limit") {
			t.Fatalf("fetches of one call: %v %s", err, out.Value)
		}
	}
}

// TestConcurrentInvocations: concurrent calls on one source run in
// separate instances; the race detector watches the host side.
func TestConcurrentInvocations(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, `let n = 0; export default { name: "c", version: "1", async run(e) { n++; await new Promise(r => setTimeout(r, 5)); this.$emit(e.i); return n } }`, `{}`)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := newRecorder()
			_, err := s.Run(context.Background(), json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)), rec.caps())
			if err == nil && (len(rec.emits) != 1 || string(rec.emits[0].Event) != fmt.Sprint(i)) {
				err = fmt.Errorf("call %d emitted %+v", i, rec.emits)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if s.WarmInstances() > h.cfg.MaxIdle {
		t.Errorf("%d warm instances kept, max %d", s.WarmInstances(), h.cfg.MaxIdle)
	}
}

func TestCompilationCacheAndClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for i := range 2 { // the second start reads the cache the first wrote
		h, err := New(ctx, Config{CacheDir: dir})
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		s := deploy(t, h, src(`run() { return 7 }`), `{}`)
		if out, err := s.Run(ctx, nil, sandbox.Capabilities{}); err != nil || string(out.Value) != "7" {
			t.Fatalf("start %d: %v %v", i, err, out)
		}
		if err := h.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Close(ctx); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := s.Run(ctx, nil, sandbox.Capabilities{}); !errors.Is(err, sandbox.ErrClosed) {
			t.Fatalf("run after Close: %v, want sandbox.ErrClosed", err)
		}
		if _, err := h.NewSource(ctx, sandbox.Spec{Code: src(`run() {}`)}); err == nil {
			t.Fatal("NewSource after Close succeeded")
		}
	}
}

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{MaxMemory: 1 << 20}, {MaxMemory: 5 << 30}} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}
