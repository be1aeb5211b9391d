package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/sandbox"
)

func TestEngineChoice(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		engine, wantErr string
	}{
		{"v8", `unknown engine "v8"`},
		{EngineWasm2go, map[bool]string{true: "", false: "not in this build"}[wasm2goBuilt]},
	} {
		_, err := Config{Engine: tt.engine}.withDefaults()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("engine %q: %v, want an error with %q", tt.engine, err, tt.wantErr)
		}
	}
	want := EngineWazero
	if wasm2goBuilt {
		want = EngineWasm2go
	}
	if c, err := (Config{}).withDefaults(); err != nil || c.Engine != want || DefaultEngine() != want {
		t.Errorf("the default engine is %q (%v), want %s", c.Engine, err, want)
	}
	if _, err := New(context.Background(), Config{Engine: "v8"}); err == nil {
		t.Error("New took an unknown engine")
	}
}

// TestLinearMemoryCap: an instance's linear memory stops at MaxMemory even
// when the JavaScript heap's own limit is higher, on every engine: the
// allocation that would pass it fails inside the guest, as a catchable
// out-of-memory error, and the instance goes on.
func TestLinearMemoryCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const maxMemory = 12 << 20
	h, err := New(ctx, testConfig(Config{MaxMemory: maxMemory, Limits: sandbox.Limits{Memory: 256 << 20}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	s := deploy(t, h, src(`run() {
		const keep = [];
		try { for (;;) keep.push(new Uint8Array(1 << 20)) } catch (e) { return { mib: keep.length, error: String(e) } }
	}`), `{}`)
	r, err := s.Run(ctx, nil, sandbox.Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MiB   int
		Error string
	}
	if err := json.Unmarshal(r.Value, &got); err != nil || got.MiB >= maxMemory>>20 || !strings.Contains(got.Error, "out of memory") {
		t.Fatalf("allocated %s in a memory of %d MiB", r.Value, maxMemory>>20)
	}
	in, err := s.acquire(ctx) // the instance that ran out, warm again
	if err != nil {
		t.Fatal(err)
	}
	defer s.release(ctx, in)
	if size := in.memoryBytes(); size > maxMemory {
		t.Errorf("the instance's memory is %d bytes, over the cap of %d", size, maxMemory)
	}
}
