package abi

import (
	"fmt"
	"slices"
)

// CompressRequest is what the guest passes to FuncCompress: Data
// (base64) compressed or decompressed in one of zlib's formats.
type CompressRequest struct {
	Op   string `json:"op"`
	Data []byte `json:"data"`
	// Level of a compressing op: -1 (the default) or 0 to 9.
	Level *int `json:"level,omitempty"`
}

// CompressOps are the ops of FuncCompress: deflate and inflate (the zlib
// format), deflateRaw and inflateRaw, gzip and gunzip, and unzip (gzip or
// zlib, by their headers).
var CompressOps = []string{"deflate", "inflate", "deflateRaw", "inflateRaw", "gzip", "gunzip", "unzip"}

// MaxCompressOutput bounds what one op may produce, so that its reply,
// as base64, fits in MaxMessage (a decompression bomb stops there).
const MaxCompressOutput = 3 << 20

// CompressReply is the host's answer: the bytes, or the error, as Node's
// zlib reports it.
type CompressReply struct {
	Bytes []byte         `json:"bytes,omitempty"`
	Error *CompressError `json:"error,omitempty"`
}

// CompressError is a failed op: Node's code (Z_DATA_ERROR, Z_BUF_ERROR,
// ERR_BUFFER_TOO_LARGE), its errno, and why.
type CompressError struct {
	Code    string `json:"code"`
	Errno   int    `json:"errno,omitempty"`
	Message string `json:"message"`
}

// DecodeCompressRequest decodes and validates a CompressRequest.
func DecodeCompressRequest(b []byte) (CompressRequest, error) {
	var r CompressRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if !slices.Contains(CompressOps, r.Op) {
		return r, fmt.Errorf("%w: compress op %q is not one of %v", ErrDecode, r.Op, CompressOps)
	}
	if r.Level != nil && (*r.Level < -1 || *r.Level > 9) {
		return r, fmt.Errorf("%w: compression level %d is not -1 to 9", ErrDecode, *r.Level)
	}
	return r, nil
}
