package host

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"math/big"

	"github.com/fount-dev/fount/abi"
)

// generateKey makes a key pair for generateKeyPair(Sync): RSA of 1024 to
// 4096 bits (exponent 65537; abi bounds the size, as generating a larger
// one would hold the host thread for seconds), EC on a named curve,
// Ed25519 or X25519; described as KeyObject needs it.
func generateKey(req abi.CryptoRequest) (*abi.KeyInfo, error) {
	var priv any
	var err error
	switch req.KeyType {
	case "rsa":
		priv, err = rsa.GenerateKey(rand.Reader, req.ModulusLength)
	case "ec":
		priv, err = ecdsa.GenerateKey(ellipticCurve(req.NamedCurve), rand.Reader)
	case "x25519":
		priv, err = ecdh.X25519().GenerateKey(rand.Reader)
	default:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	}
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return describeKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func ellipticCurve(name string) elliptic.Curve {
	switch name {
	case "secp384r1":
		return elliptic.P384()
	case "secp521r1":
		return elliptic.P521()
	}
	return elliptic.P256()
}

func ecdhCurve(name string) ecdh.Curve {
	switch name {
	case "secp384r1":
		return ecdh.P384()
	case "secp521r1":
		return ecdh.P521()
	}
	return ecdh.P256()
}

var errPeerKey = &cryptoError{"ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY", "Public key is not valid for specified curve"}

// ecdhKeys serves Node's ECDH objects: the private key given (raw) or a
// new one, its public point, and with a peer's point (uncompressed or
// compressed), the shared secret.
func ecdhKeys(req abi.CryptoRequest) (abi.CryptoReply, error) {
	curve := ecdhCurve(req.NamedCurve)
	var priv *ecdh.PrivateKey
	var err error
	if len(req.Key) == 0 {
		priv, err = curve.GenerateKey(rand.Reader)
	} else {
		priv, err = curve.NewPrivateKey(req.Key)
		if err != nil {
			return abi.CryptoReply{}, &cryptoError{"ERR_CRYPTO_INVALID_KEYTYPE", "Private key is not valid for specified curve."}
		}
	}
	if err != nil {
		return abi.CryptoReply{}, err
	}
	reply := abi.CryptoReply{Private: priv.Bytes(), Public: priv.PublicKey().Bytes()}
	if len(req.Peer) == 0 {
		return reply, nil
	}
	point := req.Peer
	if len(point) > 0 && (point[0] == 2 || point[0] == 3) {
		x, y := elliptic.UnmarshalCompressed(ellipticCurve(req.NamedCurve), point)
		if x == nil {
			return abi.CryptoReply{}, errPeerKey
		}
		//lint:ignore SA1019 only re-encodes a point UnmarshalCompressed checked
		point = elliptic.Marshal(ellipticCurve(req.NamedCurve), x, y)
	}
	peer, err := curve.NewPublicKey(point)
	if err != nil {
		return abi.CryptoReply{}, errPeerKey
	}
	if reply.Bytes, err = priv.ECDH(peer); err != nil {
		return abi.CryptoReply{}, errPeerKey
	}
	return reply, nil
}

var errAgreement = &cryptoError{"ERR_CRYPTO_INCOMPATIBLE_KEY", "Incompatible key types for Diffie-Hellman: the keys must be both EC on one curve or both X25519"}

// agree is the dh op, Node's diffieHellman({privateKey, publicKey}): the
// secret two keys share, EC on one curve or X25519.
func agree(req abi.CryptoRequest) ([]byte, error) {
	priv, err := agreementKey(req.Key, true)
	if err != nil {
		return nil, err
	}
	peer, err := agreementKey(req.Peer, false)
	if err != nil {
		return nil, err
	}
	ours, ok := priv.(*ecdh.PrivateKey)
	theirs, ok2 := peer.(*ecdh.PublicKey)
	if !ok || !ok2 || ours.Curve() != theirs.Curve() {
		return nil, errAgreement
	}
	secret, err := ours.ECDH(theirs)
	if err != nil {
		return nil, errPeerKey
	}
	return secret, nil
}

// agreementKey reads a key for agree as crypto/ecdh's: the private key
// when private is set, else the public key (of a private key too, as
// Node takes either).
func agreementKey(raw []byte, private bool) (any, error) {
	priv, pub, err := parseAnyKey(raw)
	if err != nil {
		return nil, err
	}
	if private {
		switch k := priv.(type) {
		case *ecdh.PrivateKey:
			return k, nil
		case *ecdsa.PrivateKey:
			return k.ECDH()
		}
		return nil, errAgreement
	}
	switch k := pub.(type) {
	case *ecdh.PublicKey:
		return k, nil
	case *ecdsa.PublicKey:
		return k.ECDH()
	}
	return nil, errAgreement
}

var (
	errDHSmallModulus = &cryptoError{"ERR_OSSL_DH_MODULUS_TOO_SMALL", "error:0280007E:Diffie-Hellman routines::modulus too small"}
	errDHKeySmall     = &cryptoError{"ERR_CRYPTO_INVALID_KEYLEN", "Supplied key is too small"}
	errDHKeyLarge     = &cryptoError{"ERR_CRYPTO_INVALID_KEYLEN", "Supplied key is too large"}
)

// modpKeys serves Node's DiffieHellman objects over a MODP group or a
// prime: the private key given or a new one (as many bits as the prime,
// less one; 256 bits in a named group, as OpenSSL's are short), its
// public key, and with a peer's public key, the shared secret, as long
// as the prime. Primes under 512 bits are refused, as OpenSSL does.
func modpKeys(req abi.CryptoRequest) (abi.CryptoReply, error) {
	p := new(big.Int).SetBytes(req.Prime)
	if req.Group != "" {
		p.SetString(dhGroups[req.Group], 16)
	}
	if p.BitLen() < 512 {
		return abi.CryptoReply{}, errDHSmallModulus
	}
	g := big.NewInt(2)
	if len(req.Generator) > 0 {
		g.SetBytes(req.Generator)
	}
	x := new(big.Int).SetBytes(req.Key)
	if len(req.Key) == 0 {
		bits := p.BitLen() - 1
		if req.Group != "" {
			bits = 256
		}
		var err error
		if x, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits))); err != nil {
			return abi.CryptoReply{}, err
		}
		x.SetBit(x, bits-1, 1) // the full length, and never 0 or 1
	}
	reply := abi.CryptoReply{Private: x.Bytes(), Public: new(big.Int).Exp(g, x, p).Bytes()}
	if req.Group != "" {
		reply.Prime = p.Bytes()
	}
	if len(req.Peer) == 0 {
		return reply, nil
	}
	y := new(big.Int).SetBytes(req.Peer)
	pMinus1 := new(big.Int).Sub(p, big.NewInt(1))
	switch {
	case y.Cmp(big.NewInt(1)) <= 0:
		return abi.CryptoReply{}, errDHKeySmall
	case y.Cmp(pMinus1) >= 0:
		return abi.CryptoReply{}, errDHKeyLarge
	}
	reply.Bytes = new(big.Int).Exp(y, x, p).FillBytes(make([]byte, (p.BitLen()+7)/8))
	return reply, nil
}
