package host

import (
	"context"
	"crypto/pbkdf2"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
)

// TestPBKDF2IsCryptoPBKDF2: the stoppable PBKDF2 gives what the standard
// library's gives, across digests, block boundaries and poll boundaries.
func TestPBKDF2IsCryptoPBKDF2(t *testing.T) {
	t.Parallel()
	never := func() bool { return false }
	for _, alg := range abi.CryptoAlgs {
		size := abi.CryptoHashSize(alg)
		for _, length := range []int{1, size - 1, size, size + 1, 3*size + 5} {
			for _, iterations := range []int{1, 2, pbkdf2PollEvery - 1, pbkdf2PollEvery, pbkdf2PollEvery + 1, 2500} {
				want, err := pbkdf2.Key(newHashFunc(alg), "password", []byte("salt"), iterations, length)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pbkdf2Key(alg, []byte("password"), []byte("salt"), iterations, length, never)
				if err != nil || string(got) != string(want) {
					t.Fatalf("%s, %d iterations, %d bytes: %x, %v; want %x", alg, iterations, length, got, err, want)
				}
			}
		}
	}
}

// TestPBKDF2Stops: a derivation asks whether to stop every
// pbkdf2PollEvery rounds, and gives up at once when told to.
func TestPBKDF2Stops(t *testing.T) {
	t.Parallel()
	asked := 0
	_, err := pbkdf2Key("sha1", []byte("pw"), []byte("salt"), abi.MaxPBKDF2Iterations, 80, func() bool {
		asked++
		return asked == 3
	})
	if err != errStopped || asked != 3 {
		t.Fatalf("err %v after %d questions, want errStopped after 3", err, asked)
	}
}

// TestCryptoStopsAtTheDeadline: no crypto op starts once its call is
// past the deadline; PBKDF2 at its largest cost stops at the deadline
// (it would otherwise finish and answer a key); an op that cannot be
// stopped is refused once the call spent its budget of them, with a
// failure the guest reports in words.
func TestCryptoStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	mod := probe(t)
	call := func(inv *invocation, msg string) int32 {
		t.Helper()
		if !mod.Memory().Write(1024, []byte(msg)) {
			t.Fatal("write the message")
		}
		res, err := mod.ExportedFunction("crypto").Call(withInvocation(context.Background(), inv), 1024, uint64(len(msg)))
		if err != nil {
			t.Fatal(err)
		}
		return api.DecodeI32(res[0])
	}
	past := &invocation{deadline: time.Now().Add(-time.Millisecond)}
	for _, msg := range []string{`{"op":"generate","key_type":"rsa","modulus_length":4096}`, `{"op":"digest","alg":"sha256","data":""}`} {
		if got := call(past, msg); got != abi.ErrTimeout || !past.timedOut {
			t.Errorf("%s past the deadline: %s, timed out %v; want ERR_TIMEOUT", msg, abi.ErrorName(got), past.timedOut)
		}
	}

	soon := &invocation{deadline: time.Now().Add(50 * time.Millisecond)}
	largest := fmt.Sprintf(`{"op":"pbkdf2","alg":"sha512","key":"cHc=","salt":"c2FsdA==","iterations":%d,"length":%d}`,
		abi.MaxPBKDF2Iterations, abi.MaxPBKDF2Work/abi.MaxPBKDF2Iterations*64)
	if got := call(soon, largest); got != abi.ErrTimeout {
		t.Errorf("pbkdf2 at its largest cost with a deadline 50 ms away: %s, want ERR_TIMEOUT", abi.ErrorName(got))
	}

	spent := &invocation{unstoppable: maxUnstoppable}
	n := call(spent, `{"op":"generate","key_type":"ec","named_curve":"prime256v1"}`)
	if n <= 0 || !strings.Contains(string(spent.pending), "ERR_FOUNT_CRYPTO_BUDGET") {
		t.Errorf("a key made past the call's budget: %s %s, want a failure ERR_FOUNT_CRYPTO_BUDGET", abi.ErrorName(n), spent.pending)
	}
	if n := call(spent, `{"op":"hmac","alg":"sha256","key":"aw==","data":""}`); n <= 0 || strings.Contains(string(spent.pending), "error") {
		t.Errorf("an HMAC past the budget of unstoppable ops: %d %s, want a digest", n, spent.pending)
	}
	fresh := &invocation{}
	if n := call(fresh, `{"op":"generate","key_type":"ec","named_curve":"prime256v1"}`); n <= 0 || fresh.unstoppable <= 0 {
		t.Errorf("a key made: %d, %v counted; want the key and its time counted", n, fresh.unstoppable)
	}
}

// BenchmarkPBKDF2: the stoppable PBKDF2 beside crypto/pbkdf2, 10,000
// rounds of HMAC-SHA-256 for a key of one block, in one run.
func BenchmarkPBKDF2(b *testing.B) {
	b.Run("stoppable", func(b *testing.B) {
		for b.Loop() {
			_, _ = pbkdf2Key("sha256", []byte("password"), []byte("salt"), 10_000, 32, func() bool { return false })
		}
	})
	b.Run("crypto-pbkdf2", func(b *testing.B) {
		for b.Loop() {
			_, _ = pbkdf2.Key(newHashFunc("sha256"), "password", []byte("salt"), 10_000, 32)
		}
	})
}
