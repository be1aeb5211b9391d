//go:build wasm2go

package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fount-dev/fount/internal/sandbox"
)

// TestCallDepthBoundTraps: on the wasm2go engine, guest calls nested past
// the bound trap (one instance's failure, which the host survives)
// instead of growing the goroutine's stack to its limit, which would end
// the process. The bound is lowered here so that a script's recursion
// reaches it before QuickJS's own check does.
func TestCallDepthBoundTraps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, Config{Engine: EngineWasm2go, callDepth: 400})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	s := deploy(t, h, src(`run(e) { const f = (n) => n === 0 ? 0 : 1 + f(n - 1); return f(e.n) }`), `{}`)
	if r, err := s.Run(ctx, json.RawMessage(`{"n":3}`), sandbox.Capabilities{}); err != nil || string(r.Value) != "3" {
		t.Fatalf("a shallow recursion: %s, %v", r.Value, err)
	}
	_, err = s.Run(ctx, json.RawMessage(`{"n":5000}`), sandbox.Capabilities{})
	if !errors.Is(err, sandbox.ErrTrap) || !strings.Contains(err.Error(), "stack overflow") {
		t.Fatalf("a recursion past the bound: %v, want a trap (stack overflow)", err)
	}
	if r, err := s.Run(ctx, json.RawMessage(`{"n":3}`), sandbox.Capabilities{}); err != nil || string(r.Value) != "3" {
		t.Fatalf("after the trap: %s, %v", r.Value, err)
	}
}
