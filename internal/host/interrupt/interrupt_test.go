package interrupt

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
)

var testPoll = Poll{Module: "env", Name: "poll"}

// loopModule imports env.poll () -> i32 and exports two functions:
//
//	(func (export "spin") (loop (br 0)))
//	(func (export "count") (param i32) (result i32) (local i32)
//	  (loop (local.set 1 (i32.add (local.get 1) (i32.const 1)))
//	        (br_if 0 (i32.lt_u (local.get 1) (local.get 0))))
//	  (local.get 1))
func loopModule(pollType byte) []byte {
	spin := []byte{0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}
	count := []byte{0x01, 0x01, 0x7f, // one i32 local
		0x03, 0x40,
		0x20, 0x01, 0x41, 0x01, 0x6a, 0x21, 0x01,
		0x20, 0x01, 0x20, 0x00, 0x49, 0x0d, 0x00,
		0x0b,
		0x20, 0x01, 0x0b}
	m := append([]byte(nil), header...)
	// types: 0 () -> (), 1 (i32) -> i32, 2 () -> i32
	m = appendSection(m, 1, []byte{0x03, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x01, 0x7f})
	m = appendSection(m, 2, []byte{0x01, 0x03, 'e', 'n', 'v', 0x04, 'p', 'o', 'l', 'l', 0x00, pollType})
	m = appendSection(m, 3, []byte{0x02, 0x00, 0x01})
	m = appendSection(m, 7, []byte{0x02, 0x04, 's', 'p', 'i', 'n', 0x00, 0x01, 0x05, 'c', 'o', 'u', 'n', 't', 0x00, 0x02})
	code := []byte{0x02}
	code = append(appendU32(code, uint32(len(spin))), spin...)
	code = append(appendU32(code, uint32(len(count))), count...)
	return appendSection(m, 10, code)
}

// poller is the host side of env.poll: it counts the polls and answers
// stop.
type poller struct {
	polls, stop atomic.Int64
}

func instantiate(t *testing.T, module []byte, p *poller) api.Module {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	t.Cleanup(func() { _ = rt.Close(ctx) })
	_, err := rt.NewHostModuleBuilder("env").NewFunctionBuilder().WithFunc(func() int32 {
		p.polls.Add(1)
		return int32(p.stop.Load())
	}).Export("poll").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := rt.Instantiate(ctx, module)
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	return mod
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, wait.Short, cond)
}

// TestPollStopsARunningLoop: a loop that would never end polls, lets a
// garbage collection stop the world, and traps once the poll says stop.
func TestPollStopsARunningLoop(t *testing.T) {
	t.Parallel()
	out, err := Instrument(loopModule(2), testPoll, 1000)
	if err != nil {
		t.Fatal(err)
	}
	p := &poller{}
	mod := instantiate(t, out, p)
	done := make(chan error, 1)
	go func() {
		_, err := mod.ExportedFunction("spin").Call(context.Background())
		done <- err
	}()
	waitFor(t, "the loop to poll", func() bool { return p.polls.Load() > 10 })
	runtime.GC() // hangs, and the test times out, if the loop cannot be stopped for it
	select {
	case err := <-done:
		t.Fatalf("spin returned before the poll said stop: %v", err)
	default:
	}
	p.stop.Store(1)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "unreachable") {
			t.Fatalf("spin stopped with %v, want an unreachable trap", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("spin did not stop within 30s of the poll saying stop")
	}
}

// TestLoopsKeepTheirMeaning: while the poll says go on, a loop computes
// what it did before the rewrite, polling once per every iterations.
func TestLoopsKeepTheirMeaning(t *testing.T) {
	t.Parallel()
	out, err := Instrument(loopModule(2), testPoll, 7)
	if err != nil {
		t.Fatal(err)
	}
	p := &poller{}
	mod := instantiate(t, out, p)
	res, err := mod.ExportedFunction("count").Call(context.Background(), 70000)
	if err != nil || res[0] != 70000 {
		t.Fatalf("count(70000) = %v, %v", res, err)
	}
	if got := p.polls.Load(); got != 10000 {
		t.Fatalf("%d polls for 70000 iterations every 7, want 10000", got)
	}
}

// TestGuestIsInstrumented: fount's own guest decodes, every loop gets a
// check, and wazero compiles the result.
func TestGuestIsInstrumented(t *testing.T) {
	t.Parallel()
	poll := Poll{Module: abi.ImportModule, Name: abi.FuncInterrupted}
	out, err := Instrument(guest.Wasm, poll, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := splitSections(guest.Wasm[len(header):])
	if err != nil {
		t.Fatal(err)
	}
	loops := 0
	for _, s := range sections {
		if s.id == sectionCode {
			loops = countLoops(t, s.body)
		}
	}
	if loops < 100 {
		t.Fatalf("only %d loops found in the guest", loops)
	}
	tail := []byte{0x10} // call poll; if unreachable end; end
	tail = appendU32(tail, pollIndex(t, guest.Wasm, poll))
	tail = append(tail, 0x04, 0x40, 0x00, 0x0b, 0x0b)
	if checks := bytes.Count(out, tail) - bytes.Count(guest.Wasm, tail); checks != loops {
		t.Fatalf("%d checks added for %d loops", checks, loops)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.CompileModule(ctx, out); err != nil {
		t.Fatalf("compile the instrumented guest: %v", err)
	}
}

func pollIndex(t *testing.T, module []byte, poll Poll) uint32 {
	sections, err := splitSections(module[len(header):])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sections {
		if s.id == sectionImport {
			info, err := readImports(s.body, poll)
			if err != nil {
				t.Fatal(err)
			}
			return info.pollFunc
		}
	}
	t.Fatal("no import section")
	return 0
}

// countLoops counts the loop instructions of a code section by decoding it.
func countLoops(t *testing.T, body []byte) int {
	count, off, err := readU32(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	loops := 0
	for range count {
		size, start, _ := readU32(body, off)
		fn := body[start : start+int(size)]
		groups, p, _ := readU32(fn, 0)
		for range groups {
			_, p, _ = readU32(fn, p)
			p++
		}
		for p < len(fn) {
			if fn[p] == 0x03 {
				loops++
			}
			if p, err = skipInstruction(fn, p); err != nil {
				t.Fatal(err)
			}
		}
		off = start + int(size)
	}
	return loops
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	good := loopModule(2)
	simd := bytes.Replace(good, []byte{0x0c, 0x00, 0x0b, 0x0b}, []byte{0xfd, 0x00, 0x0b, 0x0b}, 1)
	for _, tc := range []struct {
		name   string
		module []byte
		poll   Poll
		every  uint32
		want   string
	}{
		{"not wasm", []byte("hello, world"), testPoll, 10, "not a WebAssembly"},
		{"no poll import", good, Poll{"env", "other"}, 10, "does not import env.other"},
		{"poll of the wrong type", loopModule(1), testPoll, 10, "not () -> i32"},
		{"never polls", good, testPoll, 0, "out of range"},
		{"simd", simd, testPoll, 10, "unsupported opcode"},
		{"cut short", good[:len(good)-3], testPoll, 10, "past the end"},
		{"unknown section", append(append([]byte(nil), good...), 0x42, 0x00), testPoll, 10, "unknown section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Instrument(tc.module, tc.poll, tc.every); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Instrument: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
