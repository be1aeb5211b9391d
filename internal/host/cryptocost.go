package host

import (
	"context"
	"crypto/hmac"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/fount-dev/fount/abi"
)

// Crypto that outruns the deadline. The crypto import runs Go code on
// the call's goroutine, where the guest's interrupt cannot reach, so
// each op is bounded before it starts (abi.CryptoRequest.CheckCost, and
// the decoder's bounds on sizes), none starts once the call's deadline
// has passed, PBKDF2, the one whose bound is seconds, polls the deadline
// as it goes, and the ops that nothing can stop once begun (key
// generation, scrypt, Diffie-Hellman) share a budget per call. Their
// time is the call's: it counts against its deadline and the account's
// compute like the guest's own.

// maxUnstoppable is the time one call may spend in crypto ops that
// cannot be stopped once begun.
const maxUnstoppable = 5 * time.Second

// pbkdf2PollEvery is how many PBKDF2 rounds run between looks at the
// deadline: a few hundred microseconds of SHA-512.
const pbkdf2PollEvery = 1024

// errStopped ends a PBKDF2 derivation whose call is past its deadline.
var errStopped = errors.New("stopped at the call's deadline")

// unstoppable tells the ops that cannot be stopped once begun.
func unstoppable(op string) bool {
	switch op {
	case "generate", "scrypt", "modp", "dh", "ecdh":
		return true
	}
	return false
}

// startCrypto tells whether a crypto op may start; when it may not, the
// import's answer: abi.ErrTimeout past the call's deadline, or a failure
// reply when the op is over its cost or the call's budget of unstoppable
// work.
func (inv *invocation) startCrypto(ctx context.Context, req abi.CryptoRequest) (int32, bool) {
	if inv.pastDeadline(ctx) {
		inv.timedOut = true
		return abi.ErrTimeout, false
	}
	if err := req.CheckCost(); err != nil {
		return inv.cryptoFailure(&cryptoError{"ERR_FOUNT_CRYPTO_COST", err.Error()}), false
	}
	if unstoppable(req.Op) && inv.unstoppable >= maxUnstoppable {
		return inv.cryptoFailure(&cryptoError{"ERR_FOUNT_CRYPTO_BUDGET", fmt.Sprintf(
			"this call has spent %s in key generation, scrypt and Diffie-Hellman, which nothing can stop once begun, and may spend %s",
			inv.unstoppable.Round(time.Millisecond), maxUnstoppable)}), false
	}
	return 0, true
}

// spent counts an op's time against the call's budget of unstoppable
// work, when it is of that kind.
func (inv *invocation) spent(op string, since time.Time) {
	if unstoppable(op) {
		inv.unstoppable += time.Since(since)
	}
}

// pbkdf2Key is PBKDF2 (RFC 8018) with HMAC over alg, as crypto/pbkdf2
// computes it, but asking stop every pbkdf2PollEvery rounds whether to
// give up: crypto/pbkdf2 cannot be stopped, and a derivation within the
// bound still runs for seconds.
func pbkdf2Key(alg string, password, salt []byte, iterations, length int, stop func() bool) ([]byte, error) {
	prf := hmac.New(newHashFunc(alg), password)
	size := prf.Size()
	blocks := (length + size - 1) / size
	out := make([]byte, 0, blocks*size)
	u, t := make([]byte, 0, size), make([]byte, size)
	var index [4]byte
	for block := 1; block <= blocks; block++ {
		binary.BigEndian.PutUint32(index[:], uint32(block))
		prf.Reset()
		prf.Write(salt)
		prf.Write(index[:])
		u = prf.Sum(u[:0])
		copy(t, u)
		for n := 2; n <= iterations; n++ {
			if n%pbkdf2PollEvery == 0 && stop() {
				return nil, errStopped
			}
			prf.Reset()
			prf.Write(u)
			u = prf.Sum(u[:0])
			subtle.XORBytes(t, t, u)
		}
		out = append(out, t...)
	}
	return out[:length], nil
}
