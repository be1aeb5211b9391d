package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
	"github.com/fount-dev/fount/internal/sandbox"
)

// TestGuestImportList pins the guest's exact imports with their
// signatures. A new import is a reviewed change: update this list, abi, and
// abi/ABI.md together.
func TestGuestImportList(t *testing.T) {
	t.Parallel()
	want := []string{
		"fount.log(i32,i32,i32)->(i32)",
		"fount.sleep(i32)->(i32)",
		"fount.interrupted()->(i32)",
		"fount.emit(i32,i32)->(i32)",
		"fount.respond(i32,i32)->(i32)",
		"fount.db_get(i32,i32)->(i32)",
		"fount.take(i32,i32)->(i32)",
		"fount.db_set(i32,i32,i32,i32)->(i32)",
		"fount.auth(i32,i32)->(i32)",
		"fount.fetch(i32,i32)->(i32)",
		"fount.crypto(i32,i32)->(i32)",
		"fount.compress(i32,i32)->(i32)",
		"fount.tz(i32,i32)->(i32)",
		"fount.net(i32,i32)->(i32)",
		"fount.store(i32,i32)->(i32)",
		"wasi_snapshot_preview1.clock_time_get(i32,i64,i32)->(i32)",
		"wasi_snapshot_preview1.random_get(i32,i32)->(i32)",
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, guest.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		got[fmt.Sprintf("%s.%s(%s)->(%s)", mod, name, types(f.ParamTypes()), types(f.ResultTypes()))] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("guest does not import %s", w)
		}
		delete(got, w)
	}
	for g := range got {
		t.Errorf("guest imports %s, which is not in the reviewed list", g)
	}
	if len(compiled.ImportedMemories()) != 0 {
		t.Errorf("guest imports a memory")
	}
	if err := CheckImports(compiled.ImportedFunctions()); err != nil {
		t.Errorf("CheckImports: %v", err)
	}
	for _, name := range []string{abi.ExportInitialize, abi.ExportAlloc, abi.ExportFree, abi.ExportInbox, abi.ExportInit, abi.ExportCall} {
		if compiled.ExportedFunctions()[name] == nil {
			t.Errorf("guest does not export %s", name)
		}
	}
	if compiled.ExportedMemories()[abi.ExportMemory] == nil {
		t.Errorf("guest does not export its memory")
	}
}

func types(ts []api.ValueType) string {
	var b bytes.Buffer
	for i, v := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(api.ValueTypeName(v))
	}
	return b.String()
}

// TestGuestHasOneMutableGlobal backs the snapshot scheme: linear memory is
// the whole state only if the shadow stack pointer is the sole mutable
// global of the guest (it is back at its initial value between calls).
// The module the host compiles has one more, the loops' countdown to
// their next poll (package interrupt), whose value between calls does not
// matter: a restored instance only polls a little later or sooner.
func TestGuestHasOneMutableGlobal(t *testing.T) {
	t.Parallel()
	instrumented, err := InstrumentedGuest()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		module []byte
		want   int
	}{{"guest", guest.Wasm, 1}, {"instrumented", instrumented, 2}} {
		mutable, err := countMutableGlobals(tc.module)
		if err != nil {
			t.Fatal(err)
		}
		if mutable != tc.want {
			t.Errorf("%s defines %d mutable globals, want exactly %d", tc.name, mutable, tc.want)
		}
	}
}

// countMutableGlobals reads the global section of a wasm binary.
func countMutableGlobals(b []byte) (int, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return 0, fmt.Errorf("not a wasm module")
	}
	r := bytes.NewReader(b[8:])
	for r.Len() > 0 {
		id, _ := r.ReadByte()
		size, err := readULEB(r)
		if err != nil {
			return 0, err
		}
		if id != 6 {
			if _, err := r.Seek(int64(size), 1); err != nil {
				return 0, err
			}
			continue
		}
		count, err := readULEB(r)
		if err != nil {
			return 0, err
		}
		mutable := 0
		for i := uint64(0); i < count; i++ {
			if _, err := r.ReadByte(); err != nil { // value type
				return 0, err
			}
			mut, err := r.ReadByte()
			if err != nil {
				return 0, err
			}
			if mut == 1 {
				mutable++
			}
			for { // skip the constant init expression up to its end opcode
				op, err := r.ReadByte()
				if err != nil {
					return 0, err
				}
				if op == 0x0b {
					break
				}
				if op == 0x41 || op == 0x42 || op == 0x23 { // i32.const, i64.const, global.get
					if _, err := readULEB(r); err != nil {
						return 0, err
					}
				}
			}
		}
		return mutable, nil
	}
	return 0, nil
}

func readULEB(r *bytes.Reader) (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("uleb128 too long")
}

// TestSnapshotRestoresState: an instance restored from a source snapshot
// behaves as the initialised one, and the snapshot is much smaller than the
// memory it describes.
func TestSnapshotRestoresState(t *testing.T) {
	t.Parallel()
	h := newTestHost(t)
	s := deploy(t, h, `const big = "z".repeat(100000); export default { name: "s", version: "1", props: { p: { type: "string" } }, run() { return this.p + big.length } }`, `{"p":"len="}`)
	ctx := context.Background()
	in, err := h.fromSnapshot(ctx, s.snap)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close(ctx)
	v, err := h.invokeOnce(ctx, in, abi.Call{Op: abi.OpRun}, h.cfg.Limits, sandbox.Capabilities{})
	if err != nil || string(v) != `"len=100000"` {
		t.Fatalf("restored instance ran: %s, %v", v, err)
	}
	if s.snap.bytes >= int(s.snap.pages)*wasmPage {
		t.Errorf("snapshot keeps %d bytes of a %d-byte memory: it should skip unchanged pages", s.snap.bytes, int(s.snap.pages)*wasmPage)
	}
}

// TestWarmInstancesAreBounded: past MaxWarm, the least recently used warm
// instances of all sources are closed, and their sources still run,
// restored from their snapshots.
func TestWarmInstancesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := New(ctx, testConfig(Config{MaxWarm: 10})) // a host of its own: the bound is the host's
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(ctx) })
	var sources []*Source
	for range 30 {
		sources = append(sources, deploy(t, h, benchComponent, `{}`))
	}
	warm := 0
	for _, s := range sources {
		warm += s.WarmInstances()
	}
	if warm > 10 {
		t.Fatalf("%d warm instances, want at most MaxWarm 10", warm)
	}
	if sources[len(sources)-1].WarmInstances() != 1 {
		t.Error("the most recently used source lost its warm instance")
	}
	if sources[0].WarmInstances() != 0 {
		t.Error("the least recently used source kept its warm instance")
	}
	caps := sandbox.Capabilities{Emit: sandbox.EmitFunc(func(context.Context, abi.Emit) error { return nil })}
	if _, err := sources[0].Run(ctx, json.RawMessage(`{"n":1}`), caps); err != nil {
		t.Fatalf("a source whose instance was closed: %v", err)
	}
	if _, evicted, _ := h.Stats(); evicted < 20 {
		t.Errorf("%d instances counted as evicted, want at least 20", evicted)
	}
}

// TestIdleSnapshotsArePacked: a source left idle gets its snapshot packed,
// and restores from it as before.
func TestIdleSnapshotsArePacked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newTestHost(t)
	s := deploy(t, h, benchComponent, `{"limit": 7}`)
	raw := s.snap.held()
	later := time.Now().Add(h.cfg.IdleTimeout + packAfter + time.Minute)
	h.EvictIdle(later) // the warm instance goes; then the snapshot is packed
	if s.WarmInstances() != 0 || !s.snap.isPacked() {
		t.Fatalf("warm %d, packed %v: want the idle source's instance closed and its snapshot packed", s.WarmInstances(), s.snap.isPacked())
	}
	if packed := s.snap.held(); packed >= raw {
		t.Errorf("the packed snapshot holds %d bytes, the unpacked one %d", packed, raw)
	}
	rec := newRecorder()
	for i := range 3 {
		if _, err := s.Run(ctx, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), rec.caps()); err != nil {
			t.Fatalf("run %d from a packed snapshot: %v", i, err)
		}
	}
	if len(rec.emits) != 3 || !strings.Contains(string(rec.emits[2].Event), `"n":2`) || !strings.Contains(string(rec.emits[2].Event), `"limit":7`) {
		t.Fatalf("emits from a packed snapshot: %+v", rec.emits)
	}
}
