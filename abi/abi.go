package abi

// ImportModule is the wasm import module that holds every fount host
// function. The guest imports nothing else but the WASI functions listed in
// WASIImports.
const ImportModule = "fount"

// Host functions: the guest's imports from ImportModule. Every pointer and
// length is a guest-chosen value and is validated by the host before use.
// Every function returns an int32 that is either a non-negative count or
// one of the negative error codes below.
const (
	// FuncLog(level, ptr, len) -> 0 | code. Writes one console line.
	FuncLog = "log"
	// FuncEmit(ptr, len) -> 0 | code. ptr/len hold an Emit as JSON.
	FuncEmit = "emit"
	// FuncDBGet(keyPtr, keyLen) -> valueLen | ErrNotFound | code. The value
	// is held as the pending reply, to be copied out with FuncTake.
	FuncDBGet = "db_get"
	// FuncDBSet(keyPtr, keyLen, valPtr, valLen) -> 0 | code. The value is
	// JSON text.
	FuncDBSet = "db_set"
	// FuncRespond(ptr, len) -> 0 | code. ptr/len hold a Response as JSON.
	FuncRespond = "respond"
	// FuncAuth(ptr, len) -> replyLen | code. ptr/len hold the app prop's
	// name; the reply is that prop's $auth object as JSON.
	FuncAuth = "auth"
	// FuncFetch(ptr, len) -> replyLen | code. ptr/len hold a FetchRequest as
	// JSON; the reply is a FetchResponse as JSON.
	FuncFetch = "fetch"
	// FuncCrypto(ptr, len) -> replyLen | code. ptr/len hold a
	// CryptoRequest as JSON; the reply is a CryptoReply as JSON. Hashing,
	// HMAC and random bytes are the host's: Go's implementations, not
	// JavaScript ones in the guest.
	FuncCrypto = "crypto"
	// FuncCompress(ptr, len) -> replyLen | code. ptr/len hold a
	// CompressRequest as JSON; the reply is a CompressReply as JSON:
	// zlib's formats, compressed and decompressed by the host (Go's
	// compress packages), pure computation on the guest's bytes.
	FuncCompress = "compress"
	// FuncTZ(ptr, len) -> replyLen | code. ptr/len hold a TZRequest as
	// JSON; the reply is a TZReply as JSON: a time zone's offsets from UTC
	// at instants, from the host's time zone database, for the guest's
	// Intl. Pure computation: no capability.
	FuncTZ = "tz"
	// FuncNet(ptr, len) -> replyLen | code. ptr/len hold a NetRequest as
	// JSON; the reply is a NetReply as JSON. Sockets and DNS, under the
	// same egress policy as fetch.
	FuncNet = "net"
	// FuncStore(ptr, len) -> replyLen | code. ptr/len hold a StoreRequest
	// as JSON; the reply is a StoreReply as JSON: an operation on the
	// account's data store that a data_store prop names.
	FuncStore = "store"
	// FuncTake(ptr, cap) -> copied | code. Copies the pending reply of the
	// last db_get, auth, fetch, crypto, net or store into guest memory and
	// clears it.
	FuncTake = "take"
	// FuncSleep(ms) -> 0 | ErrTimeout. Blocks until ms have passed or the
	// invocation's deadline, whichever is first. Used for setTimeout.
	FuncSleep = "sleep"
	// FuncInterrupted() -> 0 | 1. Polled by QuickJS's interrupt handler;
	// 1 means the invocation must stop now.
	FuncInterrupted = "interrupted"
)

// HostFuncs lists every function of ImportModule, in the order ABI.md
// documents them.
var HostFuncs = []string{
	FuncLog, FuncEmit, FuncDBGet, FuncDBSet, FuncRespond, FuncAuth,
	FuncFetch, FuncCrypto, FuncCompress, FuncTZ, FuncNet, FuncStore, FuncTake, FuncSleep, FuncInterrupted,
}

// WASIModule is the only other import module the guest may use.
const WASIModule = "wasi_snapshot_preview1"

// WASIImports are the WASI functions the guest's libc really needs: the
// clocks (Date, timers) and the random source (Math.random, seeded per
// call). Console output goes through FuncLog, and the guest build keeps
// libc's FILE streams away from WASI, so not even fd_write is imported. The
// host implements exactly these; no files, environment, arguments or
// sockets exist.
var WASIImports = []string{"clock_time_get", "random_get"}

// Guest exports called by the host.
const (
	// ExportInitialize is the reactor's libc constructor; called once.
	ExportInitialize = "_initialize"
	// ExportAlloc(size) -> ptr, 0 on failure. Memory for a host message
	// larger than the inbox.
	ExportAlloc = "fount_alloc"
	// ExportFree(ptr) releases memory from ExportAlloc that was not handed
	// to ExportCall (the prelude, for ExportInit).
	ExportFree = "fount_free"
	// ExportInbox() -> (ptr << 32 | capacity) of a buffer the guest keeps
	// for Call messages, so that a call needs no allocation. Valid after
	// ExportInit; the same in every instance restored from a snapshot.
	ExportInbox = "fount_inbox"
	// ExportInit(ptr, len) -> 0 | -1. Creates the JS runtime and evaluates
	// the prelude held at ptr/len.
	ExportInit = "fount_init"
	// ExportCall(ptr, len) -> packed result. ptr/len hold a Call as JSON,
	// in the inbox or in memory from ExportAlloc, which the guest then owns
	// and frees. The result is (resultPtr << 32 | resultLen); it holds a
	// Result as JSON in guest memory, valid until the next ExportCall (the
	// guest frees it then). 0 means the guest could not even allocate its
	// answer.
	ExportCall = "fount_call"
	// ExportMemory is the guest's linear memory.
	ExportMemory = "memory"
)

// Error codes returned by host functions. They are negative so that any
// non-negative return is a length or count.
const (
	ErrInvalid   int32 = -1 // a pointer/length is out of bounds or the bytes do not decode
	ErrTooBig    int32 = -2 // a size cap was exceeded
	ErrDenied    int32 = -3 // the capability was not granted for this invocation
	ErrNotFound  int32 = -4 // db_get: no value under that key
	ErrFailed    int32 = -5 // the host-side sink or provider failed
	ErrTimeout   int32 = -6 // the invocation's deadline passed or it was cancelled
	ErrNoPending int32 = -7 // take: no reply is pending
	ErrState     int32 = -8 // the call is not allowed now (a second respond)
)

// ErrorCodes names every error code, for the generated C header and docs.
var ErrorCodes = []struct {
	Name string
	Code int32
}{
	{"ERR_INVALID", ErrInvalid},
	{"ERR_TOO_BIG", ErrTooBig},
	{"ERR_DENIED", ErrDenied},
	{"ERR_NOT_FOUND", ErrNotFound},
	{"ERR_FAILED", ErrFailed},
	{"ERR_TIMEOUT", ErrTimeout},
	{"ERR_NO_PENDING", ErrNoPending},
	{"ERR_STATE", ErrState},
}

// ErrorName returns the symbolic name of a host error code.
func ErrorName(code int32) string {
	for _, e := range ErrorCodes {
		if e.Code == code {
			return e.Name
		}
	}
	return "ERR_UNKNOWN"
}

// Log levels passed to FuncLog.
const (
	LevelDebug int32 = 0
	LevelInfo  int32 = 1 // console.log and console.info
	LevelWarn  int32 = 2
	LevelError int32 = 3
)

// Size limits enforced by the host on every message, whatever the
// per-invocation limits are. A message over its limit gets ErrTooBig.
const (
	MaxMessage      = 4 << 20  // any single JSON message across the boundary
	MaxLogLine      = 16 << 10 // one console line; longer lines are truncated, not refused
	MaxDBKey        = 1 << 10  // a db key
	MaxDBValue      = 1 << 20  // a db value (JSON text)
	MaxEmitName     = 256      // an emit's channel name
	MaxEmitSummary  = 1 << 10  // an emit's summary
	MaxEmitID       = 256      // an emit's id, as text
	MaxHeaderCount  = 100      // headers in a respond or fetch
	MaxResultBytes  = 8 << 20  // a call's result
	MaxSends        = 100      // $.send.http and $.send.sse requests of one call
	MaxAuthPropName = 256      // the prop name passed to auth
	MaxRandomBytes  = 65536    // random bytes of one crypto call, as crypto.getRandomValues allows
	MaxFetches      = 200      // fetch requests of one call; past it, fetch is ERR_TOO_BIG
	MaxSleepMillis  = 1 << 30  // sleep's argument; larger values are clamped
)
