package abi

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// The decoders read bytes a hostile guest chose. Each fuzz target checks
// that decoding never panics and that whatever is accepted satisfies the
// decoder's own invariants. Seeds are in testdata/fuzz/<FuzzName>/.

func FuzzDecodeEmit(f *testing.F) {
	f.Add([]byte(`{"event":{"a":1},"id":"x","name":"n","summary":"s","ts":1}`))
	f.Add([]byte(`{"id":12}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeEmit(b)
		if err != nil {
			return
		}
		if len(e.Name) > MaxEmitName || len(e.Summary) > MaxEmitSummary || len(e.IDString()) > MaxEmitID {
			t.Fatalf("accepted an oversize emit: %+v", e)
		}
		if (e.TS != nil && *e.TS < 0) || (e.DeliveryTS != nil && *e.DeliveryTS < 0) {
			t.Fatalf("accepted a negative time: %+v", e)
		}
		if len(e.Event) > 0 && !json.Valid(e.Event) {
			t.Fatalf("accepted invalid event JSON %q", e.Event)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"status":200,"headers":{"a":"b"},"body":"x"}`))
	f.Add([]byte(`{"status":99}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResponse(b)
		if err != nil {
			return
		}
		if r.Status < 100 || r.Status > 599 {
			t.Fatalf("accepted status %d", r.Status)
		}
		if err := validateHeaders(r.Headers); err != nil {
			t.Fatalf("accepted bad headers: %v", err)
		}
	})
}

func FuzzDecodeFetchRequest(f *testing.F) {
	f.Add([]byte(`{"url":"https://example.com","method":"POST","headers":{"a":"b"},"body":"x"}`))
	f.Add([]byte(`{"url":"https://example.com","method":"PUT","body":"AAEC/w==","body_encoding":"base64"}`))
	f.Add([]byte(`{"url":"https://example.com","body":"%%%","body_encoding":"base64"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeFetchRequest(b)
		if err != nil {
			return
		}
		if r.URL == "" || !validToken(r.Method) || r.BodyEncoding != "" {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"ok":true,"value":1}`))
	f.Add([]byte(`{"ok":false,"error":{"name":"E","message":"m"}}`))
	f.Add([]byte(`{"ok":true,"flow":{"kind":"delay","ms":5,"secret":"aB3-_aB3-_aB3-_aB3-_aB3-_aB3-_xy"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(b)
		if err != nil {
			return
		}
		if !r.OK && r.Error == nil {
			t.Fatalf("accepted a failure without an error")
		}
		if f := r.Flow; f != nil && (len(f.Secret) != FlowSecretLen || strings.ContainsAny(f.Secret, "/.%") || f.Ms < 0 || f.Ms > MaxFlowMs) {
			t.Fatalf("accepted the flow %+v", f)
		}
	})
}

// FuzzDecodeCryptoRequest: guest bytes either decode into a request the
// host can serve (a known op and algorithm, a bounded size) or are
// refused; they never panic.
func FuzzDecodeCryptoRequest(f *testing.F) {
	f.Add([]byte(`{"op":"digest","alg":"sha256","data":"aGk="}`))
	f.Add([]byte(`{"op":"hmac","alg":"md5","key":"a2V5","data":""}`))
	f.Add([]byte(`{"op":"random","size":65537}`))
	f.Add([]byte(`{"op":"digest","alg":"sha3"}`))
	f.Add([]byte(`{"op":"sign","alg":"sha256","key":"a2V5","data":"aGk=","padding":"pss","salt_length":-1}`))
	f.Add([]byte(`{"op":"verify","key":"a2V5","data":"","signature":"c2ln","dsa_encoding":"ieee-p1363"}`))
	f.Add([]byte(`{"op":"key","key":"a2V5"}`))
	f.Add([]byte(`{"op":"encrypt","cipher":"aes-256-gcm","key":"a2V5","iv":"aXY=","aad":"YQ==","data":"aGk="}`))
	f.Add([]byte(`{"op":"scrypt","key":"cA==","salt":"cw==","n":1024,"r":8,"p":1,"length":32}`))
	f.Add([]byte(`{"op":"scrypt","key":"cA==","n":4611686018427387904,"r":4611686018427387904,"p":1,"length":32}`))
	f.Add([]byte(`{"op":"pbkdf2","alg":"sha256","key":"cA==","iterations":100000000,"length":32}`))
	f.Add([]byte(`{"op":"pbkdf2","alg":"sha1","key":"cA==","iterations":1000000,"length":1280}`))
	f.Add([]byte(`{"op":"scrypt","key":"cA==","n":262144,"r":1,"p":16,"length":32}`))
	f.Add([]byte(`{"op":"generate","key_type":"rsa","modulus_length":65536}`))
	f.Add([]byte(`{"op":"generate","key_type":"ec","named_curve":"secp256k1"}`))
	f.Add([]byte(`{"op":"generate","key_type":"x25519"}`))
	f.Add([]byte(`{"op":"ecdh","named_curve":"prime256v1","key":"a2V5","peer":"BAE="}`))
	f.Add([]byte(`{"op":"dh","key":"a2V5","peer":""}`))
	f.Add([]byte(`{"op":"modp","group":"modp14","key":"Ag=="}`))
	f.Add([]byte(`{"op":"modp","group":"modp3"}`))
	f.Add([]byte(`{"op":"modp","prime":"Fw==","generator":"BQ==","peer":"AQ=="}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeCryptoRequest(b)
		if err != nil {
			return
		}
		keyed := r.Op == "sign" || r.Op == "verify" || r.Op == "key"
		ciphered := r.Op == "encrypt" || r.Op == "decrypt"
		algOK := slices.Contains(CryptoAlgs, r.Alg) || slices.Contains([]string{"random", "scrypt", "generate", "ecdh", "dh", "modp"}, r.Op) || ciphered || (keyed && r.Alg == "")
		if r.Size < 0 || r.Size > MaxRandomBytes || !algOK || (keyed && len(r.Key) == 0) || r.SaltLength < -2 ||
			(ciphered && !slices.Contains(Ciphers, r.Cipher)) ||
			(r.Op == "scrypt" && (r.N > MaxScryptMemory/128 || r.R > MaxScryptMemory/128 || 128*r.N*r.R > MaxScryptMemory)) ||
			(r.Op == "pbkdf2" && r.Iterations > MaxPBKDF2Iterations) ||
			(r.Op == "generate" && r.KeyType == "rsa" && (r.ModulusLength < 1024 || r.ModulusLength > 4096)) ||
			((r.Op == "ecdh" || (r.Op == "generate" && r.KeyType == "ec")) && !slices.Contains(NamedCurves, r.NamedCurve)) ||
			(r.Op == "dh" && (len(r.Key) == 0 || len(r.Peer) == 0)) ||
			(r.Op == "modp" && ((r.Group == "") == (len(r.Prime) == 0) || (r.Group != "" && !slices.Contains(DHGroups, r.Group)) ||
				len(r.Prime) > MaxDHBytes || len(r.Generator) > MaxDHBytes || len(r.Key) > MaxDHBytes || len(r.Peer) > MaxDHBytes)) {
			t.Fatalf("accepted %+v", r)
		}
		if r.CheckCost() != nil {
			return
		}
		if size := CryptoHashSize(r.Alg); r.Op == "pbkdf2" && r.Iterations*((r.Length+size-1)/size) > MaxPBKDF2Work ||
			r.Op == "scrypt" && r.N*r.R*r.P > MaxScryptWork {
			t.Fatalf("costs more than its bound: %+v", r)
		}
	})
}

// FuzzDecodeNetRequest: guest bytes either decode into an op the host can
// serve (a known op, a bounded host, a port in range, a known record
// type) or are refused; they never panic.
func FuzzDecodeNetRequest(f *testing.F) {
	f.Add([]byte(`{"op":"connect","host":"example.com","port":443,"tls":{"servername":"example.com","ca":["x"],"alpn":["h2"]}}`))
	f.Add([]byte(`{"op":"write","id":1,"data":"aGk="}`))
	f.Add([]byte(`{"op":"poll","wait":100}`))
	f.Add([]byte(`{"op":"lookup","host":"example.com","family":6}`))
	f.Add([]byte(`{"op":"resolve","host":"example.com","rrtype":"MX"}`))
	f.Add([]byte(`{"op":"connect","host":"","port":70000}`))
	f.Add([]byte(`{"op":"tls","id":0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeNetRequest(b)
		if err != nil {
			return
		}
		if !slices.Contains(NetOps, r.Op) || len(r.Host) > MaxHostnameSize || r.Wait < 0 ||
			(r.Op == "connect" && (r.Host == "" || r.Port < 1 || r.Port > 65535)) ||
			(r.Op == "resolve" && !slices.Contains(DNSRecordTypes, r.RRType)) ||
			((r.Op == "write" || r.Op == "end" || r.Op == "close" || r.Op == "tls") && r.ID <= 0) ||
			(r.Family != 0 && r.Family != 4 && r.Family != 6) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzDecodeTZRequest: guest bytes decode into a zone name of the
// allowed shape and a bounded list of finite instants, or are refused;
// they never panic.
func FuzzDecodeTZRequest(f *testing.F) {
	f.Add([]byte(`{"zone":"America/New_York","times":[0,1700000000000]}`))
	f.Add([]byte(`{"zone":"../../etc/passwd","times":[]}`))
	f.Add([]byte(`{"zone":"UTC","times":[1e300]}`))
	f.Add([]byte(`{"zone":"America/Argentina/Buenos_Aires"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeTZRequest(b)
		if err != nil {
			return
		}
		if len(r.Zone) == 0 || len(r.Zone) > 64 || strings.Contains(r.Zone, "..") || strings.HasPrefix(r.Zone, "/") || len(r.Times) > MaxTZTimes {
			t.Fatalf("accepted %+v", r)
		}
		for _, ms := range r.Times {
			if math.IsNaN(ms) || math.Abs(ms) > 8.64e15 {
				t.Fatalf("accepted the instant %v", ms)
			}
		}
	})
}

// FuzzDecodeCompressRequest: guest bytes decode into a known op with a
// level in range, or are refused; they never panic.
func FuzzDecodeCompressRequest(f *testing.F) {
	f.Add([]byte(`{"op":"gzip","data":"aGk=","level":9}`))
	f.Add([]byte(`{"op":"inflate","data":""}`))
	f.Add([]byte(`{"op":"brotli","data":"aGk="}`))
	f.Add([]byte(`{"op":"deflate","data":"aGk=","level":10}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeCompressRequest(b)
		if err != nil {
			return
		}
		if !slices.Contains(CompressOps, r.Op) || (r.Level != nil && (*r.Level < -1 || *r.Level > 9)) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzDecodeStoreRequest: guest bytes decode into a request the host can
// serve (a known op, a prop, a valid key where one is needed, a bounded
// JSON value on set only) or are refused; they never panic.
func FuzzDecodeStoreRequest(f *testing.F) {
	f.Add([]byte(`{"op":"set","prop":"data","key":"k","value":{"a":1},"ttl":60}`))
	f.Add([]byte(`{"op":"entries","prop":"data"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeStoreRequest(b)
		if err != nil {
			return
		}
		if r.Prop == "" || (r.Op == StoreSet && (!json.Valid(r.Value) || len(r.Value) > MaxStoreValue)) || (r.Op != StoreSet && len(r.Value) > 0) {
			t.Fatalf("accepted %+v", r)
		}
		if r.Op == StoreGet && ValidStoreKey(r.Key) != nil {
			t.Fatalf("accepted the key %q", r.Key)
		}
	})
}
