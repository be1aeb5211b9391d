package host

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"

	"github.com/fount-dev/fount/abi"
)

// cryptoError is a failure as Node reports it: a code of its own (or
// none), and its words.
type cryptoError struct{ code, msg string }

func (e *cryptoError) Error() string { return e.msg }

var (
	errKeyLength = &cryptoError{"ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length"}
	errIV        = &cryptoError{"ERR_CRYPTO_INVALID_IV", "Invalid initialization vector"}
	errAuth      = &cryptoError{"", "Unsupported state or unable to authenticate data"}
	// OpenSSL's words, which Node passes on as they are.
	errBlockSize = &cryptoError{"ERR_OSSL_WRONG_FINAL_BLOCK_LENGTH", "error:1C80006B:Provider routines::wrong final block length"}
	errPadding   = &cryptoError{"ERR_OSSL_BAD_DECRYPT", "error:1C800064:Provider routines::bad decrypt"}
)

// crypt encrypts or decrypts req.Data whole from req.IV: Node's Cipheriv
// and Decipheriv, whose node:crypto sends each update's whole blocks (CBC,
// ECB, chaining the IV itself), each update from the counter reached
// (CTR), or an AEAD's whole input at final. It returns the output and,
// for an AEAD encryption, the tag.
func crypt(req abi.CryptoRequest) ([]byte, []byte, error) {
	if req.Cipher == "chacha20-poly1305" {
		return chacha(req)
	}
	size := map[string]int{"128": 16, "192": 24, "256": 32}[strings.Split(req.Cipher, "-")[1]]
	if len(req.Key) != size {
		return nil, nil, errKeyLength
	}
	block, err := aes.NewCipher(req.Key)
	if err != nil {
		return nil, nil, errKeyLength
	}
	encrypt := req.Op == "encrypt"
	switch mode := req.Cipher[len(req.Cipher)-3:]; mode {
	case "cbc", "ecb":
		if mode == "cbc" && len(req.IV) != aes.BlockSize || mode == "ecb" && len(req.IV) != 0 {
			return nil, nil, errIV
		}
		return blockMode(block, mode, encrypt, req)
	case "ctr":
		if len(req.IV) != aes.BlockSize {
			return nil, nil, errIV
		}
		out := make([]byte, len(req.Data))
		cipher.NewCTR(block, req.IV).XORKeyStream(out, req.Data)
		return out, nil, nil
	default: // gcm
		if len(req.IV) == 0 {
			return nil, nil, errIV
		}
		tagLen := req.TagLength
		if tagLen == 0 {
			tagLen = 16
		}
		aead, err := cipher.NewGCMWithNonceSize(block, len(req.IV))
		if tagLen != 16 {
			if len(req.IV) != 12 {
				return nil, nil, &cryptoError{"ERR_CRYPTO_INVALID_AUTH_TAG", fmt.Sprintf("Invalid authentication tag length: %d", tagLen)}
			}
			aead, err = cipher.NewGCMWithTagSize(block, tagLen)
		}
		if err != nil {
			return nil, nil, &cryptoError{"ERR_CRYPTO_INVALID_AUTH_TAG", fmt.Sprintf("Invalid authentication tag length: %d", tagLen)}
		}
		return seal(aead, encrypt, req)
	}
}

func chacha(req abi.CryptoRequest) ([]byte, []byte, error) {
	if len(req.Key) != chacha20poly1305.KeySize {
		return nil, nil, errKeyLength
	}
	if len(req.IV) != chacha20poly1305.NonceSize {
		return nil, nil, errIV
	}
	aead, err := chacha20poly1305.New(req.Key)
	if err != nil {
		return nil, nil, errKeyLength
	}
	return seal(aead, req.Op == "encrypt", req)
}

// seal encrypts (the tag apart, as Node gives it) or opens with the tag.
func seal(aead cipher.AEAD, encrypt bool, req abi.CryptoRequest) ([]byte, []byte, error) {
	if encrypt {
		out := aead.Seal(nil, req.IV, req.Data, req.AAD)
		n := len(out) - aead.Overhead()
		return out[:n], out[n:], nil
	}
	if len(req.Tag) != aead.Overhead() {
		return nil, nil, errAuth
	}
	out, err := aead.Open(nil, req.IV, append(append([]byte(nil), req.Data...), req.Tag...), req.AAD)
	if err != nil {
		return nil, nil, errAuth
	}
	return out, nil, nil
}

func blockMode(block cipher.Block, mode string, encrypt bool, req abi.CryptoRequest) ([]byte, []byte, error) {
	data := req.Data
	if encrypt && !req.NoPadding {
		pad := aes.BlockSize - len(data)%aes.BlockSize
		data = append(append([]byte(nil), data...), make([]byte, pad)...)
		for i := len(data) - pad; i < len(data); i++ {
			data[i] = byte(pad)
		}
	}
	if len(data)%aes.BlockSize != 0 {
		return nil, nil, errBlockSize
	}
	out := make([]byte, len(data))
	switch {
	case mode == "ecb":
		for i := 0; i < len(data); i += aes.BlockSize {
			if encrypt {
				block.Encrypt(out[i:], data[i:])
			} else {
				block.Decrypt(out[i:], data[i:])
			}
		}
	case encrypt:
		cipher.NewCBCEncrypter(block, req.IV).CryptBlocks(out, data)
	default:
		cipher.NewCBCDecrypter(block, req.IV).CryptBlocks(out, data)
	}
	if encrypt || req.NoPadding {
		return out, nil, nil
	}
	if len(out) == 0 {
		return nil, nil, errPadding
	}
	pad := int(out[len(out)-1])
	if pad < 1 || pad > aes.BlockSize || pad > len(out) {
		return nil, nil, errPadding
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, nil, errPadding
		}
	}
	return out[:len(out)-pad], nil, nil
}

// derive makes a key with pbkdf2, hkdf or scrypt. A pbkdf2 stops with
// errStopped once stop says so.
func derive(req abi.CryptoRequest, stop func() bool) ([]byte, error) {
	switch req.Op {
	case "pbkdf2":
		return pbkdf2Key(req.Alg, req.Key, req.Salt, req.Iterations, req.Length, stop)
	case "hkdf":
		return hkdf.Key(newHashFunc(req.Alg), req.Key, req.Salt, string(req.Info), req.Length)
	case "scrypt":
		return scrypt.Key(req.Key, req.Salt, req.N, req.R, req.P, req.Length)
	}
	return nil, errors.New("unknown key derivation")
}
