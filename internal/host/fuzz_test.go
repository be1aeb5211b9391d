package host

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/sandbox"
)

// fuzzHost has a short deadline so that looping inputs stay cheap.
var fuzzHost = sync.OnceValues(func() (*Host, error) {
	return New(context.Background(), testConfig(Config{Limits: sandbox.Limits{Timeout: 250 * time.Millisecond, Memory: 16 << 20}}))
})

// FuzzIntrospect feeds arbitrary code to introspection. It must never panic
// or hang, and every outcome must be a valid description or one of the
// documented errors. Seeds are in testdata/fuzz/FuzzIntrospect.
func FuzzIntrospect(f *testing.F) {
	f.Add(`export default { name: "a", version: "1", props: { x: { type: "string", default: "d" } }, run() {} }`)
	f.Add(`module.exports = { name: "c", version: "2", type: "action", run({ $ }) {} }`)
	f.Add(`export default { name: "b", version: "1", props: { p: { propDefinition: [{ propDefinitions: {} }, "x"] } }, run() {} }`)
	f.Add(`JSON.stringify = () => "{"; export default { name: "x", version: "1", run() {} }`)
	h, err := fuzzHost()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code string) {
		m, err := h.Introspect(context.Background(), code, "", nil)
		if err == nil {
			if m.Name == "" || m.Version == "" || (m.Type != "source" && m.Type != "action") {
				t.Fatalf("accepted metadata without name, version or type: %+v", m)
			}
			for _, p := range m.ConfigurableProps {
				if p.Name == "" || p.Type == "" {
					t.Fatalf("prop without name or type: %+v", p)
				}
			}
			return
		}
		var se *sandbox.ScriptError
		if !errors.As(err, &se) && !errors.Is(err, sandbox.ErrTimeout) && !errors.Is(err, sandbox.ErrOutOfMemory) && !errors.Is(err, sandbox.ErrTrap) {
			t.Fatalf("undocumented error %T: %v", err, err)
		}
	})
}

// FuzzRawABI calls a host function chosen by the input with raw pointer and
// length values and hostile bytes placed in guest memory. The host must
// answer with a code and never panic.
func FuzzRawABI(f *testing.F) {
	f.Add(uint8(1), uint32(0), uint32(16), []byte(`{"event":1}`))
	f.Add(uint8(4), uint32(65530), uint32(100), []byte(`{"status":200}`))
	f.Add(uint8(2), uint32(1<<31), uint32(1<<31), []byte{0xff, 0xfe})
	f.Add(uint8(8), uint32(0), uint32(61), []byte(`{"op":"encrypt","cipher":"aes-128-gcm","key":"","data":"aGk="}`))
	f.Add(uint8(9), uint32(0), uint32(37), []byte(`{"op":"gunzip","data":"H4sIAAAAAAAA"}`))
	mod := probe(f)
	// net is called without an egress (denied once its bytes are read):
	// with one, a fuzzed host name would reach DNS.
	names := []string{"log", "emit", "db_get", "db_set", "respond", "auth", "fetch", "take", "crypto", "compress", "net", "store"}
	f.Fuzz(func(t *testing.T, which uint8, ptr, length uint32, data []byte) {
		if len(data) > 1<<16 {
			data = data[:1<<16]
		}
		mod.Memory().Write(0, data)
		rec := newRecorder()
		inv := &invocation{caps: rec.caps(), limits: sandbox.Limits{EmitBytes: 1 << 20, LogBytes: 1 << 20, RespondBytes: 1 << 20}}
		ctx := withInvocation(context.Background(), inv)
		name := names[int(which)%len(names)]
		args := []uint64{uint64(ptr), uint64(length)}
		switch name {
		case "log":
			args = append([]uint64{uint64(which % 5)}, args...)
		case "db_set":
			args = append(args, uint64(ptr/2), uint64(length/2))
		}
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil {
			t.Fatalf("%s%v failed in the host: %v", name, args, err)
		}
		code := api.DecodeI32(res[0])
		if code < abi.ErrState {
			t.Fatalf("%s returned %d, not a documented code", name, code)
		}
	})
}
