package host

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"

	"github.com/fount-dev/fount/abi"
)

// TestKeyOps: keys in each format node:crypto takes sign and verify;
// what is not a key, an encrypted key and an oversized RSA modulus are
// refused.
func TestKeyOps(t *testing.T) {
	t.Parallel()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 1024)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	ecDER, _ := x509.MarshalECPrivateKey(ecKey)
	keys := []struct {
		name, alg string
		key       []byte
		info      string
	}{
		{"RSA PKCS #1 PEM", "sha256", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), "rsa"},
		{"RSA PKCS #8 DER", "sha512", func() []byte { d, _ := x509.MarshalPKCS8PrivateKey(rsaKey); return d }(), "rsa"},
		{"EC SEC 1 PEM", "sha256", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}), "ec"},
		{"Ed25519 PKCS #8 PEM", "", pkcs8(edKey), "ed25519"},
	}
	for _, k := range keys {
		sig, err := signWith(abi.CryptoRequest{Op: "sign", Alg: k.alg, Key: k.key, Data: []byte("data")})
		if err != nil {
			t.Errorf("%s: sign: %v", k.name, err)
			continue
		}
		info, err := describeKey(k.key)
		if err != nil || info.Algorithm != k.info || info.Type != "private" || !strings.HasPrefix(info.PublicPEM, "-----BEGIN PUBLIC KEY-----") {
			t.Errorf("%s: key info %+v, %v", k.name, info, err)
			continue
		}
		for _, key := range [][]byte{k.key, []byte(info.PublicPEM)} {
			ok, err := verifyWith(abi.CryptoRequest{Op: "verify", Alg: k.alg, Key: key, Data: []byte("data"), Signature: sig})
			bad, _ := verifyWith(abi.CryptoRequest{Op: "verify", Alg: k.alg, Key: key, Data: []byte("other"), Signature: sig})
			if err != nil || !ok || bad {
				t.Errorf("%s: verify %v %v, of other data %v", k.name, ok, err, bad)
			}
		}
	}
	huge := &rsa.PublicKey{N: new(big.Int).Lsh(big.NewInt(1), maxRSABits+8), E: 65537}
	hugeDER, _ := x509.MarshalPKIXPublicKey(huge)
	for _, bad := range []struct{ name, key string }{
		{"not a key", "hello"},
		{"an encrypted key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"},
		{"an RSA modulus over the bound", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: hugeDER}))},
	} {
		if _, err := describeKey([]byte(bad.key)); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
	if _, err := signWith(abi.CryptoRequest{Op: "sign", Alg: "sha256", Key: keys[0].key[:0]}); err == nil {
		t.Error("signed with no key")
	}
}

// FuzzParseKey: whatever bytes a component gives as a key, parsing never
// panics.
func FuzzParseKey(f *testing.F) {
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n"))
	f.Add([]byte{0x30, 0x82, 0x01, 0x0a})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = describeKey(b)
		_, _ = verifyWith(abi.CryptoRequest{Op: "verify", Alg: "sha256", Key: b, Data: b, Signature: b})
	})
}
