package abi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrDecode is wrapped by every decoding error of a guest message.
var ErrDecode = errors.New("abi: invalid guest message")

// Emit is what the guest passes to FuncEmit: this.$emit(event, meta) or
// $.send.emit(...).
type Emit struct {
	Event      json.RawMessage `json:"event,omitempty"`
	ID         json.RawMessage `json:"id,omitempty"` // a JSON string or number
	Name       string          `json:"name,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	TS         *int64          `json:"ts,omitempty"`          // epoch ms
	DeliveryTS *int64          `json:"delivery_ts,omitempty"` // epoch ms, for delayed emits
}

// IDString returns the emit id as text ("" when absent): a JSON string's
// value, or a number's literal.
func (e Emit) IDString() string {
	if len(e.ID) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(e.ID, &s) == nil {
		return s
	}
	return string(e.ID)
}

// DecodeEmit decodes and validates an Emit.
func DecodeEmit(b []byte) (Emit, error) {
	var e Emit
	if err := decodeStrict(b, &e); err != nil {
		return e, err
	}
	if string(e.ID) == "null" {
		return e, fmt.Errorf("%w: emit id must be a string or a number, not null", ErrDecode)
	}
	if len(e.ID) > 0 {
		var s string
		var n json.Number
		if json.Unmarshal(e.ID, &s) != nil && json.Unmarshal(e.ID, &n) != nil {
			return e, fmt.Errorf("%w: emit id must be a string or a number", ErrDecode)
		}
		if len(e.IDString()) > MaxEmitID {
			return e, fmt.Errorf("%w: emit id is longer than %d bytes", ErrDecode, MaxEmitID)
		}
	}
	if len(e.Name) > MaxEmitName {
		return e, fmt.Errorf("%w: emit name is longer than %d bytes", ErrDecode, MaxEmitName)
	}
	if len(e.Summary) > MaxEmitSummary {
		return e, fmt.Errorf("%w: emit summary is longer than %d bytes", ErrDecode, MaxEmitSummary)
	}
	if e.TS != nil && *e.TS < 0 {
		return e, fmt.Errorf("%w: emit ts must not be negative", ErrDecode)
	}
	if e.DeliveryTS != nil && *e.DeliveryTS < 0 {
		return e, fmt.Errorf("%w: emit delivery_ts must not be negative", ErrDecode)
	}
	return e, nil
}

// Response is what the guest passes to FuncRespond: http.respond(...) or
// $.respond(...).
type Response struct {
	Status       int               `json:"status"`
	Headers      map[string]string `json:"headers,omitempty"`
	Body         string            `json:"body,omitempty"`
	BodyEncoding string            `json:"body_encoding,omitempty"` // "" or "utf8", or "base64" for a buffer
	// Immediate, in a workflow, answers the request at once; without it
	// the execution's first response answers when the execution ends.
	Immediate bool `json:"immediate,omitempty"`
}

// DecodeResponse decodes and validates a Response: status 100-599, a
// bounded number of valid header fields, a known body encoding.
func DecodeResponse(b []byte) (Response, error) {
	var r Response
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if r.Status < 100 || r.Status > 599 {
		return r, fmt.Errorf("%w: respond status %d is outside 100-599", ErrDecode, r.Status)
	}
	if err := validateHeaders(r.Headers); err != nil {
		return r, err
	}
	switch r.BodyEncoding {
	case "", "utf8", "base64":
	default:
		return r, fmt.Errorf("%w: unknown body_encoding %q", ErrDecode, r.BodyEncoding)
	}
	return r, nil
}

// FetchRequest is what the guest passes to FuncFetch. A binary body
// comes as base64, with BodyEncoding "base64"; decoding gives Body its
// bytes and clears BodyEncoding.
type FetchRequest struct {
	URL          string            `json:"url"`
	Method       string            `json:"method,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Body         string            `json:"body,omitempty"`
	BodyEncoding string            `json:"body_encoding,omitempty"`
}

// DecodeFetchRequest decodes and validates a FetchRequest. Whether the
// destination is allowed is the egress policy's decision, not the decoder's.
func DecodeFetchRequest(b []byte) (FetchRequest, error) {
	var r FetchRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if r.URL == "" {
		return r, fmt.Errorf("%w: fetch url is empty", ErrDecode)
	}
	switch r.BodyEncoding {
	case "":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(r.Body)
		if err != nil {
			return r, fmt.Errorf("%w: fetch body is not base64", ErrDecode)
		}
		r.Body, r.BodyEncoding = string(b), ""
	default:
		return r, fmt.Errorf("%w: unknown fetch body_encoding %q", ErrDecode, r.BodyEncoding)
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	if !validToken(r.Method) {
		return r, fmt.Errorf("%w: fetch method %q is not a valid HTTP method", ErrDecode, r.Method)
	}
	if err := validateHeaders(r.Headers); err != nil {
		return r, err
	}
	return r, nil
}

// FetchResponse is the host's reply to FuncFetch. A body that is not
// UTF-8 text goes to the guest as base64, with BodyEncoding "base64"
// (host side, Body holds the bytes as they came).
type FetchResponse struct {
	Status       int               `json:"status"`
	Headers      map[string]string `json:"headers"`
	Body         string            `json:"body"`
	BodyEncoding string            `json:"body_encoding,omitempty"`
}

// FetchFailure is the reply of a fetch whose request failed on the way
// (DNS, the connection, TLS, a timeout of the request itself): Node's
// error code for it, and the host's words on why, which name no address
// of the server's.
type FetchFailure struct {
	Error FetchError `json:"error"`
}

// FetchError is what a FetchFailure says.
type FetchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func validateHeaders(h map[string]string) error {
	if len(h) > MaxHeaderCount {
		return fmt.Errorf("%w: more than %d headers", ErrDecode, MaxHeaderCount)
	}
	for k, v := range h {
		if !validToken(k) {
			return fmt.Errorf("%w: header name %q is not valid", ErrDecode, k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("%w: header %q has a control character in its value", ErrDecode, k)
		}
	}
	return nil
}

// validToken reports whether s is an RFC 9110 token (header names, methods).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// decodeStrict decodes exactly one JSON value into v, refusing unknown
// fields, invalid UTF-8, trailing data and oversize input.
func decodeStrict(b []byte, v any) error {
	return decodeStrictMax(b, v, MaxMessage)
}

// decodeStrictMax is decodeStrict with a size limit of its own.
func decodeStrictMax(b []byte, v any, limit int) error {
	if len(b) > limit {
		return fmt.Errorf("%w: message of %d bytes is over the %d byte limit", ErrDecode, len(b), limit)
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("%w: message is not valid UTF-8", ErrDecode)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrDecode, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the message", ErrDecode)
	}
	return nil
}

// ParseLevel maps a FuncLog level to its name; unknown levels are refused.
func ParseLevel(level int32) (string, error) {
	switch level {
	case LevelDebug:
		return "debug", nil
	case LevelInfo:
		return "info", nil
	case LevelWarn:
		return "warn", nil
	case LevelError:
		return "error", nil
	}
	return "", fmt.Errorf("%w: log level %s is unknown", ErrDecode, strconv.Itoa(int(level)))
}

// CryptoRequest is what the guest passes to FuncCrypto: a digest of Data
// ("digest"), an HMAC of Data with Key ("hmac"), or Size random bytes
// ("random"). Key and Data are base64.
type CryptoRequest struct {
	Op   string `json:"op"`
	Alg  string `json:"alg,omitempty"` // md5, sha1, sha256, sha384 or sha512; "" for Ed25519 signatures
	Key  []byte `json:"key,omitempty"` // an HMAC's key; a sign, verify or key op's key, PEM or DER
	Data []byte `json:"data,omitempty"`
	Size int    `json:"size,omitempty"`
	// Signature is what a verify op checks.
	Signature []byte `json:"signature,omitempty"`
	// Padding of RSA signatures: "" (PKCS #1 v1.5) or "pss", with
	// SaltLength (-1: the hash's length, -2: the most that fits, as
	// Node's RSA_PSS_SALTLEN_DIGEST and _MAX_SIGN).
	Padding    string `json:"padding,omitempty"`
	SaltLength int    `json:"salt_length,omitempty"`
	// DSAEncoding of ECDSA signatures: "" (DER) or "ieee-p1363" (r||s).
	DSAEncoding string `json:"dsa_encoding,omitempty"`
	// Cipher is an encrypt or decrypt op's (one of Ciphers), with its IV,
	// the additional data and tag of an AEAD, its tag's length, and
	// whether PKCS #7 padding is off (Node's setAutoPadding(false)).
	Cipher    string `json:"cipher,omitempty"`
	IV        []byte `json:"iv,omitempty"`
	AAD       []byte `json:"aad,omitempty"`
	Tag       []byte `json:"tag,omitempty"`
	TagLength int    `json:"tag_length,omitempty"`
	NoPadding bool   `json:"no_padding,omitempty"`
	// Key derivation (pbkdf2, hkdf, scrypt): the salt, the info of hkdf,
	// the iterations of pbkdf2, scrypt's cost N, block size r and
	// parallelism p, and the length of the key made.
	// A generate op's key: KeyType rsa, ec, ed25519 or x25519, with RSA's
	// ModulusLength or EC's NamedCurve; an ecdh op's curve (NamedCurve),
	// private key (Key, raw; none makes one) and the peer's public key
	// (Peer, a raw point); a dh op's private key (Key) and the peer's
	// public key (Peer), PEM or DER, both EC on one curve or both X25519.
	// A modp op's group (Node's name, DHGroups) or prime, and generator
	// (default 2), with Key and Peer as for ecdh.
	Group         string `json:"group,omitempty"`
	Prime         []byte `json:"prime,omitempty"`
	Generator     []byte `json:"generator,omitempty"`
	KeyType       string `json:"key_type,omitempty"`
	ModulusLength int    `json:"modulus_length,omitempty"`
	NamedCurve    string `json:"named_curve,omitempty"`
	Peer          []byte `json:"peer,omitempty"`
	Salt          []byte `json:"salt,omitempty"`
	Info          []byte `json:"info,omitempty"`
	Iterations    int    `json:"iterations,omitempty"`
	N             int    `json:"n,omitempty"`
	R             int    `json:"r,omitempty"`
	P             int    `json:"p,omitempty"`
	Length        int    `json:"length,omitempty"`
}

// NamedCurves are the curves of FuncCrypto's generate and ecdh ops, by
// OpenSSL's names (Node's).
var NamedCurves = []string{"prime256v1", "secp384r1", "secp521r1"}

// DHGroups are the MODP groups of FuncCrypto's modp op, by Node's names.
var DHGroups = []string{"modp1", "modp2", "modp5", "modp14", "modp15", "modp16", "modp17", "modp18"}

// MaxDHBytes bounds a modp op's prime, generator and keys (8192 bits, the
// largest group's).
const MaxDHBytes = 1024

// Ciphers are the ciphers of FuncCrypto's encrypt and decrypt ops, by
// Node's names.
var Ciphers = []string{"aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "aes-128-ctr", "aes-192-ctr", "aes-256-ctr",
	"aes-128-gcm", "aes-192-gcm", "aes-256-gcm", "aes-128-ecb", "aes-192-ecb", "aes-256-ecb", "chacha20-poly1305"}

// Limits of key derivation. Each op runs on the host, so each is bounded
// by what it costs, not only by its inputs apart (enough for the usual
// settings: 600,000 PBKDF2 iterations of a key of two blocks, scrypt with
// N=2^15 and r=8): PBKDF2's work is its iterations times the blocks of
// the hash's size its key takes, and it stops at the call's deadline;
// scrypt cannot be stopped once begun, so its work N·r·p is bounded to a
// few tenths of a second, and its memory 128·N·r to a few tens of MiB.
const (
	MaxDerivedKey       = 1 << 16 // bytes of a derived key
	MaxPBKDF2Iterations = 1_000_000
	MaxPBKDF2Work       = 1 << 22  // iterations × blocks
	MaxScryptMemory     = 32 << 20 // 128 * N * r bytes
	MaxScryptWork       = 1 << 19  // N * r * p
)

// CryptoHashSize is the bytes of a digest of alg, one of CryptoAlgs; 0
// for another.
func CryptoHashSize(alg string) int {
	switch alg {
	case "md5":
		return 16
	case "sha1":
		return 20
	case "sha256":
		return 32
	case "sha384":
		return 48
	case "sha512":
		return 64
	}
	return 0
}

// ErrCost is wrapped by CheckCost's refusals.
var ErrCost = errors.New("over fount's bound of what one crypto operation may cost")

// CheckCost refuses a decoded key derivation whose work, rather than any
// one input, is over its bound: PBKDF2's iterations × blocks, scrypt's
// N·r·p. The host calls it before it derives, and answers its refusal
// as the op's failure, in the error's words.
func (r CryptoRequest) CheckCost() error {
	switch r.Op {
	case "pbkdf2":
		size := CryptoHashSize(r.Alg)
		if size == 0 {
			return fmt.Errorf("%w: pbkdf2 of an unknown digest %q", ErrCost, r.Alg)
		}
		blocks := (r.Length + size - 1) / size
		if work := r.Iterations * blocks; r.Iterations > MaxPBKDF2Work || blocks > MaxPBKDF2Work || work > MaxPBKDF2Work {
			return fmt.Errorf("%w: pbkdf2 of %d iterations for a key of %d blocks of %s (%d bytes) is %d rounds, over %d (iterations × blocks)",
				ErrCost, r.Iterations, blocks, r.Alg, r.Length, work, MaxPBKDF2Work)
		}
	case "scrypt":
		if work := r.N * r.R * r.P; r.N > MaxScryptWork || r.R > MaxScryptWork || r.P > MaxScryptWork || work > MaxScryptWork {
			return fmt.Errorf("%w: scrypt with N=%d, r=%d, p=%d is %d rounds, over %d (N·r·p)", ErrCost, r.N, r.R, r.P, work, MaxScryptWork)
		}
	}
	return nil
}

// CryptoReply is the host's reply to FuncCrypto: the digest, the random
// bytes or the signature, base64; a verify op's answer in Valid; a key
// op's description in Key.
type CryptoReply struct {
	Bytes []byte `json:"bytes"`
	Tag   []byte `json:"tag,omitempty"` // an AEAD's, of an encrypt op
	// An ecdh op's raw private key and public point (uncompressed); its
	// Bytes are the shared secret when a peer was given.
	Private []byte   `json:"private,omitempty"`
	Prime   []byte   `json:"prime,omitempty"` // a modp op's on a named group
	Public  []byte   `json:"public,omitempty"`
	Valid   bool     `json:"valid,omitempty"`
	Key     *KeyInfo `json:"key,omitempty"`
}

// KeyInfo describes an asymmetric key, as Node's KeyObject does, with
// its public half as SPKI PEM and, for a private key, the key as PKCS #8
// PEM: what KeyObject.export gives.
type KeyInfo struct {
	Type          string `json:"type"`                     // "private" or "public"
	Algorithm     string `json:"asymmetric_key_type"`      // "rsa", "ec", "ed25519" or "x25519"
	ModulusLength int    `json:"modulus_length,omitempty"` // rsa
	NamedCurve    string `json:"named_curve,omitempty"`    // ec: prime256v1, secp384r1, secp521r1
	PublicPEM     string `json:"public_pem"`
	PrivatePEM    string `json:"private_pem,omitempty"`
}

// CryptoAlgs are the hash algorithms of FuncCrypto.
var CryptoAlgs = []string{"md5", "sha1", "sha256", "sha384", "sha512"}

// DecodeCryptoRequest decodes and validates a CryptoRequest.
func DecodeCryptoRequest(b []byte) (CryptoRequest, error) {
	var r CryptoRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	switch r.Op {
	case "digest", "hmac":
		if !slices.Contains(CryptoAlgs, r.Alg) {
			return r, fmt.Errorf("%w: crypto algorithm %q is not one of %v", ErrDecode, r.Alg, CryptoAlgs)
		}
	case "random":
		if r.Size < 0 || r.Size > MaxRandomBytes {
			return r, fmt.Errorf("%w: %d random bytes, more than %d", ErrDecode, r.Size, MaxRandomBytes)
		}
	case "sign", "verify":
		if r.Alg != "" && !slices.Contains(CryptoAlgs, r.Alg) {
			return r, fmt.Errorf("%w: crypto algorithm %q is not one of %v", ErrDecode, r.Alg, CryptoAlgs)
		}
		if r.Padding != "" && r.Padding != "pss" {
			return r, fmt.Errorf("%w: padding %q is not pss", ErrDecode, r.Padding)
		}
		if r.SaltLength < -2 || r.SaltLength > 1024 {
			return r, fmt.Errorf("%w: salt length %d", ErrDecode, r.SaltLength)
		}
		if r.DSAEncoding != "" && r.DSAEncoding != "ieee-p1363" {
			return r, fmt.Errorf("%w: dsa encoding %q is not ieee-p1363", ErrDecode, r.DSAEncoding)
		}
		if len(r.Key) == 0 {
			return r, fmt.Errorf("%w: %s needs a key", ErrDecode, r.Op)
		}
	case "key":
		if len(r.Key) == 0 {
			return r, fmt.Errorf("%w: key needs a key", ErrDecode)
		}
	case "generate":
		switch {
		case r.KeyType == "rsa" && (r.ModulusLength < 1024 || r.ModulusLength > 4096 || r.ModulusLength%8 != 0):
			return r, fmt.Errorf("%w: an RSA key of %d bits (1024 to 4096, a multiple of 8)", ErrDecode, r.ModulusLength)
		case r.KeyType == "ec" && !slices.Contains(NamedCurves, r.NamedCurve):
			return r, fmt.Errorf("%w: curve %q is not one of %v", ErrDecode, r.NamedCurve, NamedCurves)
		case !slices.Contains([]string{"rsa", "ec", "ed25519", "x25519"}, r.KeyType):
			return r, fmt.Errorf("%w: key type %q is not rsa, ec, ed25519 or x25519", ErrDecode, r.KeyType)
		}
	case "modp":
		switch {
		case r.Group != "" && !slices.Contains(DHGroups, r.Group):
			return r, fmt.Errorf("%w: DH group %q is not one of %v", ErrDecode, r.Group, DHGroups)
		case (r.Group == "") == (len(r.Prime) == 0):
			return r, fmt.Errorf("%w: modp needs a group or a prime", ErrDecode)
		case len(r.Prime) > MaxDHBytes || len(r.Generator) > MaxDHBytes || len(r.Key) > MaxDHBytes || len(r.Peer) > MaxDHBytes:
			return r, fmt.Errorf("%w: a DH prime, generator or key of more than %d bytes", ErrDecode, MaxDHBytes)
		}
	case "dh":
		if len(r.Key) == 0 || len(r.Peer) == 0 {
			return r, fmt.Errorf("%w: dh needs a private key and a peer's public key", ErrDecode)
		}
	case "ecdh":
		if !slices.Contains(NamedCurves, r.NamedCurve) {
			return r, fmt.Errorf("%w: curve %q is not one of %v", ErrDecode, r.NamedCurve, NamedCurves)
		}
	case "encrypt", "decrypt":
		if !slices.Contains(Ciphers, r.Cipher) {
			return r, fmt.Errorf("%w: cipher %q is not one of %v", ErrDecode, r.Cipher, Ciphers)
		}
	case "pbkdf2", "hkdf", "scrypt":
		if r.Op != "scrypt" && !slices.Contains(CryptoAlgs, r.Alg) {
			return r, fmt.Errorf("%w: crypto algorithm %q is not one of %v", ErrDecode, r.Alg, CryptoAlgs)
		}
		if r.Length < 1 || r.Length > MaxDerivedKey {
			return r, fmt.Errorf("%w: a derived key of %d bytes (1 to %d)", ErrDecode, r.Length, MaxDerivedKey)
		}
		if r.Op == "pbkdf2" && (r.Iterations < 1 || r.Iterations > MaxPBKDF2Iterations) {
			return r, fmt.Errorf("%w: %d pbkdf2 iterations (1 to %d)", ErrDecode, r.Iterations, MaxPBKDF2Iterations)
		}
		if r.Op == "scrypt" && (r.N < 2 || r.N&(r.N-1) != 0 || r.R < 1 || r.P < 1 || r.P > 16 ||
			r.N > MaxScryptMemory/128 || r.R > MaxScryptMemory/128 || 128*r.N*r.R > MaxScryptMemory) {
			return r, fmt.Errorf("%w: scrypt N=%d r=%d p=%d (N a power of two, 128*N*r at most %d bytes, p at most 16)", ErrDecode, r.N, r.R, r.P, MaxScryptMemory)
		}
	default:
		return r, fmt.Errorf("%w: crypto op %q is not digest, hmac, random, sign, verify, key, generate, ecdh, dh, modp, encrypt, decrypt, pbkdf2, hkdf or scrypt", ErrDecode, r.Op)
	}
	return r, nil
}
