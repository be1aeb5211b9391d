package host

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
)

// The guest's libc imports exactly the WASI functions in abi.WASIImports.
// fount implements them itself instead of using a general WASI host: there
// is no file system, environment, argument list or socket to expose, and a
// reviewer can read the whole surface here.

// WASI errno values used below (wasi_snapshot_preview1).
const (
	wasiSuccess = 0
	wasiEFAULT  = 21
	wasiEINVAL  = 28
	wasiENOTSUP = 58
)

// maxRandomBytes caps one random_get; libc asks for at most 256.
const maxRandomBytes = 4096

func instantiateWASI(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder(abi.WASIModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(wasiClockTimeGet),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export("clock_time_get").
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(wasiRandomGet),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		Export("random_get").
		Instantiate(ctx)
	return err
}

// processStart anchors the monotonic clock.
var processStart = time.Now()

// wasiClockTimeGet(id, precision, resultPtr) writes the time in ns.
// Clock 0 is the wall clock, 1 is monotonic; CPU-time clocks are refused.
func wasiClockTimeGet(_ context.Context, mod api.Module, stack []uint64) {
	id := api.DecodeI32(stack[0])
	ptr := api.DecodeI32(stack[2])
	var ns uint64
	switch id {
	case 0:
		ns = uint64(time.Now().UnixNano())
	case 1:
		ns = uint64(time.Since(processStart).Nanoseconds())
	default:
		stack[0] = wasiENOTSUP
		return
	}
	if ptr < 0 {
		stack[0] = wasiEFAULT
		return
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], ns)
	if !mod.Memory().Write(uint32(ptr), b[:]) {
		stack[0] = wasiEFAULT
		return
	}
	stack[0] = wasiSuccess
}

// wasiRandomGet(buf, len) fills len bytes from the OS random source.
func wasiRandomGet(_ context.Context, mod api.Module, stack []uint64) {
	ptr, n := api.DecodeI32(stack[0]), api.DecodeI32(stack[1])
	if ptr < 0 || n < 0 || n > maxRandomBytes {
		stack[0] = wasiEINVAL
		return
	}
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	if !mod.Memory().Write(uint32(ptr), b) {
		stack[0] = wasiEFAULT
		return
	}
	stack[0] = wasiSuccess
}
