package host

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"

	"github.com/fount-dev/fount/abi"
)

// Signatures for node:crypto (createSign, createVerify, sign, verify,
// KeyObject): the guest hands over its own keys, PEM or DER, and Go's
// implementations sign and verify. Keys are the component's own: nothing
// here reaches beyond the call's bytes. RSA moduli are bounded, so that a
// crafted key cannot hold the host thread for long.

// maxRSABits bounds the RSA keys the host signs and verifies with.
const maxRSABits = 8192

// errKey is a key the host cannot read; the guest reports it as Node
// does (ERR_OSSL_UNSUPPORTED and kin), without the host's words.
var errKey = errors.New("the key is not an RSA, EC or Ed25519 key in PEM or DER")

// parseKey reads a private or a public key, PEM or DER: PKCS #8, PKCS #1,
// SEC 1, SPKI, or an X.509 certificate's public key.
func parseKey(raw []byte) (priv crypto.Signer, pub crypto.PublicKey, err error) {
	der, kind := raw, ""
	if block, _ := pem.Decode(raw); block != nil {
		der, kind = block.Bytes, block.Type
		if _, encrypted := block.Headers["Proc-Type"]; encrypted || kind == "ENCRYPTED PRIVATE KEY" {
			return nil, nil, errors.New("encrypted private keys are not supported: give the key unencrypted")
		}
	}
	try := func(k any) (crypto.Signer, crypto.PublicKey, error) {
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return k, &k.PublicKey, checkRSA(&k.PublicKey)
		case *ecdsa.PrivateKey:
			return k, &k.PublicKey, nil
		case ed25519.PrivateKey:
			return k, k.Public(), nil
		case *rsa.PublicKey:
			return nil, k, checkRSA(k)
		case *ecdsa.PublicKey, ed25519.PublicKey:
			return nil, k, nil
		}
		return nil, nil, errKey
	}
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil && (kind == "" || kind == "PRIVATE KEY") {
		return try(k)
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil && (kind == "" || kind == "RSA PRIVATE KEY") {
		return try(k)
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil && (kind == "" || kind == "EC PRIVATE KEY") {
		return try(k)
	}
	if k, err := x509.ParsePKIXPublicKey(der); err == nil && (kind == "" || kind == "PUBLIC KEY") {
		return try(k)
	}
	if k, err := x509.ParsePKCS1PublicKey(der); err == nil && (kind == "" || kind == "RSA PUBLIC KEY") {
		return try(k)
	}
	if c, err := x509.ParseCertificate(der); err == nil && (kind == "" || kind == "CERTIFICATE") {
		return try(c.PublicKey)
	}
	return nil, nil, errKey
}

func checkRSA(k *rsa.PublicKey) error {
	if k.N.BitLen() > maxRSABits {
		return fmt.Errorf("RSA keys of more than %d bits are not supported", maxRSABits)
	}
	return nil
}

// parseAnyKey is parseKey and X25519's keys, which agree on secrets but
// never sign: priv is a crypto.Signer or an *ecdh.PrivateKey.
func parseAnyKey(raw []byte) (priv any, pub crypto.PublicKey, err error) {
	signer, pub, err := parseKey(raw)
	if err == nil {
		if signer != nil {
			return signer, pub, nil
		}
		return nil, pub, nil
	}
	der := raw
	if block, _ := pem.Decode(raw); block != nil {
		der = block.Bytes
	}
	if k, perr := x509.ParsePKCS8PrivateKey(der); perr == nil {
		if k, ok := k.(*ecdh.PrivateKey); ok {
			return k, k.PublicKey(), nil
		}
	}
	if k, perr := x509.ParsePKIXPublicKey(der); perr == nil {
		if k, ok := k.(*ecdh.PublicKey); ok {
			return nil, k, nil
		}
	}
	return nil, nil, err
}

// describeKey is the key op: what Node's KeyObject says of a key, with
// its public half as SPKI PEM and a private key as PKCS #8 PEM.
func describeKey(raw []byte) (*abi.KeyInfo, error) {
	priv, pub, err := parseAnyKey(raw)
	if err != nil {
		return nil, err
	}
	info := &abi.KeyInfo{Type: "public"}
	switch k := pub.(type) {
	case *ecdh.PublicKey:
		info.Algorithm = "x25519"
	case *rsa.PublicKey:
		info.Algorithm, info.ModulusLength = "rsa", k.N.BitLen()
	case *ecdsa.PublicKey:
		info.Algorithm, info.NamedCurve = "ec", curveName(k.Curve)
	case ed25519.PublicKey:
		info.Algorithm = "ed25519"
	}
	spki, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	info.PublicPEM = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}))
	if priv != nil {
		pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, err
		}
		info.Type, info.PrivatePEM = "private", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
	}
	return info, nil
}

// curveName is OpenSSL's name of a curve, as Node reports it.
func curveName(c elliptic.Curve) string {
	switch c {
	case elliptic.P256():
		return "prime256v1"
	case elliptic.P384():
		return "secp384r1"
	case elliptic.P521():
		return "secp521r1"
	}
	return c.Params().Name
}

// cryptoHash is the crypto.Hash of an algorithm of abi.CryptoAlgs.
func cryptoHash(alg string) crypto.Hash {
	switch alg {
	case "md5":
		return crypto.MD5
	case "sha1":
		return crypto.SHA1
	case "sha384":
		return crypto.SHA384
	case "sha512":
		return crypto.SHA512
	}
	return crypto.SHA256
}

// digestFor hashes data for a signature with alg ("" hashes nothing: the
// key signs the data itself, as Ed25519 does).
func digestFor(alg string, data []byte) ([]byte, crypto.Hash) {
	if alg == "" {
		return data, 0
	}
	h := newHash(alg)
	h.Write(data)
	return h.Sum(nil), cryptoHash(alg)
}

func pssOptions(req abi.CryptoRequest, h crypto.Hash) *rsa.PSSOptions {
	salt := req.SaltLength
	switch salt {
	case -1:
		salt = rsa.PSSSaltLengthEqualsHash
	case -2:
		salt = rsa.PSSSaltLengthAuto
	}
	return &rsa.PSSOptions{SaltLength: salt, Hash: h}
}

// signWith is the sign op.
func signWith(req abi.CryptoRequest) ([]byte, error) {
	priv, _, err := parseKey(req.Key)
	if err != nil {
		return nil, err
	}
	if priv == nil {
		return nil, errors.New("signing needs a private key")
	}
	digest, h := digestFor(req.Alg, req.Data)
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		if req.Alg != "" {
			// Node signs with Ed25519 whatever hash is named: the data
			// is not hashed first.
			digest = req.Data
		}
		return ed25519.Sign(k, digest), nil
	case *rsa.PrivateKey:
		if h == 0 {
			return nil, errors.New("an RSA signature needs a hash algorithm")
		}
		if req.Padding == "pss" {
			return rsa.SignPSS(rand.Reader, k, h, digest, pssOptions(req, h))
		}
		return rsa.SignPKCS1v15(nil, k, h, digest)
	case *ecdsa.PrivateKey:
		if h == 0 {
			return nil, errors.New("an ECDSA signature needs a hash algorithm")
		}
		if req.DSAEncoding == "ieee-p1363" {
			r, s, err := ecdsa.Sign(rand.Reader, k, digest)
			if err != nil {
				return nil, err
			}
			size := (k.Curve.Params().BitSize + 7) / 8
			out := make([]byte, 2*size)
			r.FillBytes(out[:size])
			s.FillBytes(out[size:])
			return out, nil
		}
		return ecdsa.SignASN1(rand.Reader, k, digest)
	}
	return nil, errKey
}

// verifyWith is the verify op: whether the signature is the key's.
func verifyWith(req abi.CryptoRequest) (bool, error) {
	_, pub, err := parseKey(req.Key)
	if err != nil {
		return false, err
	}
	digest, h := digestFor(req.Alg, req.Data)
	switch k := pub.(type) {
	case ed25519.PublicKey:
		return ed25519.Verify(k, req.Data, req.Signature), nil
	case *rsa.PublicKey:
		if h == 0 {
			return false, errors.New("an RSA signature needs a hash algorithm")
		}
		if req.Padding == "pss" {
			return rsa.VerifyPSS(k, h, digest, req.Signature, pssOptions(req, h)) == nil, nil
		}
		return rsa.VerifyPKCS1v15(k, h, digest, req.Signature) == nil, nil
	case *ecdsa.PublicKey:
		if h == 0 {
			return false, errors.New("an ECDSA signature needs a hash algorithm")
		}
		if req.DSAEncoding == "ieee-p1363" {
			size := (k.Curve.Params().BitSize + 7) / 8
			if len(req.Signature) != 2*size {
				return false, nil
			}
			r, s := new(big.Int).SetBytes(req.Signature[:size]), new(big.Int).SetBytes(req.Signature[size:])
			return ecdsa.Verify(k, digest, r, s), nil
		}
		var sig struct{ R, S *big.Int }
		if rest, err := asn1.Unmarshal(req.Signature, &sig); err != nil || len(rest) > 0 {
			return false, nil
		}
		return ecdsa.VerifyASN1(k, digest, req.Signature), nil
	}
	return false, errKey
}
