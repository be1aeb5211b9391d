package host

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"hash"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/sandbox"
)

// Every function here treats guest memory as hostile: pointers and lengths
// are guest-chosen, so each is bounds-checked against the current memory and
// capped before any byte is read, bytes are copied out before use, and every
// failure is an abi error code returned to the guest, never a host panic.

var i32 = api.ValueTypeI32

// hostFunc is one fount import: its name, signature and implementation.
type hostFunc struct {
	name    string
	params  []api.ValueType
	results []api.ValueType
	fn      func(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32
}

func fountImports() []hostFunc {
	return []hostFunc{
		{abi.FuncLog, []api.ValueType{i32, i32, i32}, []api.ValueType{i32}, hostLog},
		{abi.FuncEmit, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostEmit},
		{abi.FuncDBGet, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostDBGet},
		{abi.FuncDBSet, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}, hostDBSet},
		{abi.FuncRespond, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostRespond},
		{abi.FuncAuth, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostAuth},
		{abi.FuncFetch, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostFetch},
		{abi.FuncCrypto, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostCrypto},
		{abi.FuncCompress, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostCompress},
		{abi.FuncTZ, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostTZ},
		{abi.FuncNet, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostNet},
		{abi.FuncStore, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostStore},
		{abi.FuncTake, []api.ValueType{i32, i32}, []api.ValueType{i32}, hostTake},
		{abi.FuncSleep, []api.ValueType{i32}, []api.ValueType{i32}, hostSleep},
		{abi.FuncInterrupted, nil, []api.ValueType{i32}, hostInterrupted},
	}
}

// instantiateFount registers the fount import module in rt.
func instantiateFount(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(abi.ImportModule)
	for _, f := range fountImports() {
		f := f
		b = b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			stack[0] = api.EncodeI32(f.call(ctx, mod, stack))
		}), f.params, f.results).Export(f.name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// call runs f for a call of the guest in ctx, its arguments in stack.
func (f hostFunc) call(ctx context.Context, mod api.Module, stack []uint64) int32 {
	inv := invocationFrom(ctx)
	if inv == nil {
		// Called outside an invocation (during init or load): only the
		// interrupt poll and logging are meaningful.
		inv = &invocation{}
	}
	return f.fn(ctx, inv, mod, stack)
}

// guestBytes copies len bytes at ptr out of guest memory, refusing
// negative values, out-of-bounds ranges and sizes over max.
func guestBytes(mod api.Module, ptr, length uint64, max int) ([]byte, int32) {
	p, n := api.DecodeI32(ptr), api.DecodeI32(length)
	if p < 0 || n < 0 {
		return nil, abi.ErrInvalid
	}
	if int(n) > max {
		return nil, abi.ErrTooBig
	}
	view, ok := mod.Memory().Read(uint32(p), uint32(n))
	if !ok {
		return nil, abi.ErrInvalid
	}
	return append([]byte(nil), view...), 0
}

// guestMessage reads the message the guest passed in stack[0:2] (at most
// abi.MaxMessage bytes) and decodes it with decode: ErrInvalid when it
// does not decode.
func guestMessage[T any](mod api.Module, stack []uint64, decode func([]byte) (T, error)) (T, int32) {
	var zero T
	b, code := guestBytes(mod, stack[0], stack[1], abi.MaxMessage)
	if code != 0 {
		return zero, code
	}
	v, err := decode(b)
	if err != nil {
		return zero, abi.ErrInvalid
	}
	return v, 0
}

func hostLog(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	level, err := abi.ParseLevel(api.DecodeI32(stack[0]))
	if err != nil {
		return abi.ErrInvalid
	}
	n := api.DecodeI32(stack[2])
	if n > abi.MaxLogLine {
		n = abi.MaxLogLine // truncate rather than refuse: logging must not throw
	}
	b, code := guestBytes(mod, stack[1], uint64(uint32(n)), abi.MaxLogLine)
	if code != 0 {
		return code
	}
	if inv.caps.Log == nil {
		return 0
	}
	if inv.logged+int64(len(b)) > inv.limits.LogBytes {
		if !inv.truncated {
			inv.truncated = true
			_ = inv.caps.Log.Log(ctx, sandbox.LogEntry{Time: time.Now(), Level: "warn", Text: "[fount: log output over the invocation's limit was dropped]"})
		}
		return 0
	}
	inv.logged += int64(len(b))
	text := string(b)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if err := inv.caps.Log.Log(ctx, sandbox.LogEntry{Time: time.Now(), Level: level, Text: text}); err != nil {
		return abi.ErrFailed
	}
	return 0
}

func hostEmit(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	if inv.caps.Emit == nil {
		return abi.ErrDenied
	}
	b, code := guestBytes(mod, stack[0], stack[1], abi.MaxMessage)
	if code != 0 {
		return code
	}
	if inv.emitted+int64(len(b)) > inv.limits.EmitBytes {
		return abi.ErrTooBig
	}
	e, err := abi.DecodeEmit(b)
	if err != nil {
		return abi.ErrInvalid
	}
	inv.emitted += int64(len(b))
	if err := inv.caps.Emit.Emit(ctx, e); err != nil {
		return abi.ErrFailed
	}
	return 0
}

func hostDBGet(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	if inv.caps.DB == nil {
		return abi.ErrDenied
	}
	key, code := guestKey(mod, stack[0], stack[1])
	if code != 0 {
		return code
	}
	v, ok, err := inv.caps.DB.Get(ctx, key)
	if err != nil {
		return abi.ErrFailed
	}
	if !ok {
		return abi.ErrNotFound
	}
	return inv.setReply(v)
}

func hostDBSet(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	if inv.caps.DB == nil {
		return abi.ErrDenied
	}
	key, code := guestKey(mod, stack[0], stack[1])
	if code != 0 {
		return code
	}
	v, code := guestBytes(mod, stack[2], stack[3], abi.MaxDBValue)
	if code != 0 {
		return code
	}
	if !json.Valid(v) {
		return abi.ErrInvalid
	}
	if inv.dbWritten+int64(len(key)+len(v)) > inv.limits.DBBytes {
		return abi.ErrTooBig
	}
	inv.dbWritten += int64(len(key) + len(v))
	if err := inv.caps.DB.Set(ctx, key, v); err != nil {
		return abi.ErrFailed
	}
	return 0
}

func guestKey(mod api.Module, ptr, length uint64) (string, int32) {
	b, code := guestBytes(mod, ptr, length, abi.MaxDBKey)
	if code != 0 {
		return "", code
	}
	if !utf8.Valid(b) {
		return "", abi.ErrInvalid
	}
	return string(b), 0
}

func hostRespond(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	if inv.caps.Respond == nil {
		return abi.ErrDenied
	}
	if inv.responded {
		return abi.ErrState
	}
	r, code := guestMessage(mod, stack, abi.DecodeResponse)
	if code != 0 {
		return code
	}
	if int64(len(r.Body)) > inv.limits.RespondBytes {
		return abi.ErrTooBig
	}
	inv.responded = true
	if err := inv.caps.Respond.Respond(ctx, r); err != nil {
		return abi.ErrFailed
	}
	return 0
}

func hostAuth(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	if inv.caps.Auth == nil {
		return abi.ErrDenied
	}
	name, code := guestBytes(mod, stack[0], stack[1], abi.MaxAuthPropName)
	if code != 0 {
		return code
	}
	v, err := inv.caps.Auth.Auth(ctx, string(name))
	if errors.Is(err, sandbox.ErrNotFound) {
		return abi.ErrNotFound
	}
	if err != nil {
		return abi.ErrFailed
	}
	if !json.Valid(v) {
		return abi.ErrFailed
	}
	return inv.setReply(v)
}

func hostFetch(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	if inv.caps.Egress == nil {
		return abi.ErrDenied
	}
	if inv.fetches >= abi.MaxFetches {
		return abi.ErrTooBig
	}
	inv.fetches++
	req, code := guestMessage(mod, stack, abi.DecodeFetchRequest)
	if code != 0 {
		return code
	}
	res, err := inv.caps.Egress.Fetch(ctx, req)
	switch {
	case errors.Is(err, egress.ErrDenied):
		return abi.ErrDenied
	case errors.Is(err, egress.ErrTooBig):
		return abi.ErrTooBig
	case ctx.Err() != nil:
		return abi.ErrTimeout
	case err != nil:
		// The request failed on its way: say why, as Node would, so
		// that code branching on err.code works.
		out, _ := json.Marshal(abi.FetchFailure{Error: abi.FetchError{Code: egress.Code(err), Message: egress.Describe(err)}})
		return inv.setReply(out)
	}
	if !utf8.ValidString(res.Body) {
		// Bytes that are not text cross as base64, not mangled into
		// JSON's replacement characters.
		res.Body, res.BodyEncoding = base64.StdEncoding.EncodeToString([]byte(res.Body)), "base64"
	}
	return inv.replyJSON(res)
}

// clearReply drops any pending reply, so that FuncTake only ever returns
// the reply of the last db_get, auth or fetch, or nothing when it failed.
func (inv *invocation) clearReply() { inv.pending, inv.hasReply = nil, false }

// setReply holds v for FuncTake and returns its length.
func (inv *invocation) setReply(v []byte) int32 {
	if len(v) > abi.MaxMessage {
		return abi.ErrTooBig
	}
	inv.pending = v
	inv.hasReply = true
	return int32(len(v))
}

func hostTake(_ context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	if !inv.hasReply {
		return abi.ErrNoPending
	}
	p, capacity := api.DecodeI32(stack[0]), api.DecodeI32(stack[1])
	if p < 0 || capacity < 0 || int(capacity) < len(inv.pending) {
		return abi.ErrInvalid
	}
	if !mod.Memory().Write(uint32(p), inv.pending) {
		return abi.ErrInvalid
	}
	n := int32(len(inv.pending))
	inv.pending, inv.hasReply = nil, false
	return n
}

func hostSleep(ctx context.Context, inv *invocation, _ api.Module, stack []uint64) int32 {
	ms := api.DecodeI32(stack[0])
	if ms < 0 {
		return abi.ErrInvalid
	}
	if ms > abi.MaxSleepMillis {
		ms = abi.MaxSleepMillis
	}
	d := time.Duration(ms) * time.Millisecond
	if !inv.deadline.IsZero() && time.Until(inv.deadline) < d {
		inv.timedOut = true // the timer cannot fire within the budget
		return abi.ErrTimeout
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		inv.timedOut = true
		return abi.ErrTimeout
	}
}

// hostInterrupted also stops the calls of a closed module (the host
// closing mid-call), as wazero's close-on-context-done used to.
func hostInterrupted(ctx context.Context, inv *invocation, mod api.Module, _ []uint64) int32 {
	if inv.pastDeadline(ctx) || mod.IsClosed() {
		return 1
	}
	return 0
}

// hostCrypto hashes, HMACs, makes random bytes, keys and signatures,
// ciphers and derives keys: pure computation on the guest's bytes, with
// no capability needed, bounded in time as cryptocost.go says.
func hostCrypto(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	req, code := guestMessage(mod, stack, abi.DecodeCryptoRequest)
	if code != 0 {
		return code
	}
	if code, ok := inv.startCrypto(ctx, req); !ok {
		return code
	}
	defer inv.spent(req.Op, time.Now())
	var out []byte
	switch req.Op {
	case "random":
		out = make([]byte, req.Size)
		if _, err := rand.Read(out); err != nil {
			return abi.ErrFailed
		}
	case "digest":
		h := newHash(req.Alg)
		h.Write(req.Data)
		out = h.Sum(nil)
	case "hmac":
		h := hmac.New(func() hash.Hash { return newHash(req.Alg) }, req.Key)
		h.Write(req.Data)
		out = h.Sum(nil)
	case "sign", "verify", "key":
		return inv.keyOp(req)
	case "encrypt", "decrypt":
		out, tag, err := crypt(req)
		if err != nil {
			return inv.cryptoFailure(err)
		}
		return inv.replyJSON(abi.CryptoReply{Bytes: out, Tag: tag})
	case "generate":
		key, err := generateKey(req)
		if err != nil {
			return inv.cryptoFailure(err)
		}
		return inv.replyJSON(abi.CryptoReply{Key: key})
	case "ecdh":
		reply, err := ecdhKeys(req)
		if err != nil {
			return inv.cryptoFailure(err)
		}
		return inv.replyJSON(reply)
	case "modp":
		reply, err := modpKeys(req)
		if err != nil {
			return inv.cryptoFailure(err)
		}
		return inv.replyJSON(reply)
	case "dh":
		secret, err := agree(req)
		if err != nil {
			return inv.cryptoFailure(err)
		}
		return inv.replyJSON(abi.CryptoReply{Bytes: secret})
	case "pbkdf2", "hkdf", "scrypt":
		key, err := derive(req, func() bool { return inv.pastDeadline(ctx) })
		if errors.Is(err, errStopped) {
			inv.timedOut = true
			return abi.ErrTimeout
		}
		if err != nil {
			return inv.cryptoFailure(err)
		}
		out = key
	}
	return inv.replyJSON(abi.CryptoReply{Bytes: out})
}

// replyJSON makes v, as JSON, the reply the guest takes next.
func (inv *invocation) replyJSON(v any) int32 {
	msg, err := json.Marshal(v)
	if err != nil {
		return abi.ErrFailed
	}
	return inv.setReply(msg)
}

// keyOp answers the crypto ops over keys: a key the host cannot use is
// a failure the guest reports as Node does, with the host's reason.
func (inv *invocation) keyOp(req abi.CryptoRequest) int32 {
	var reply abi.CryptoReply
	var err error
	switch req.Op {
	case "sign":
		reply.Bytes, err = signWith(req)
	case "verify":
		reply.Valid, err = verifyWith(req)
	case "key":
		reply.Key, err = describeKey(req.Key)
	}
	if err != nil {
		return inv.replyJSON(map[string]string{"error": err.Error()})
	}
	return inv.replyJSON(reply)
}

// cryptoFailure answers a crypto op that failed on the guest's input, as
// Node reports it: its words, and its code when it has one.
func (inv *invocation) cryptoFailure(err error) int32 {
	failure := map[string]string{"error": err.Error()}
	var ce *cryptoError
	if errors.As(err, &ce) && ce.code != "" {
		failure["code"] = ce.code
	}
	return inv.replyJSON(failure)
}

// newHashFunc is newHash for what takes a constructor.
func newHashFunc(alg string) func() hash.Hash {
	return func() hash.Hash { return newHash(alg) }
}

// newHash returns the hash of an algorithm abi.DecodeCryptoRequest allows.
func newHash(alg string) hash.Hash {
	switch alg {
	case "md5":
		return md5.New()
	case "sha1":
		return sha1.New()
	case "sha384":
		return sha512.New384()
	case "sha512":
		return sha512.New()
	}
	return sha256.New()
}
