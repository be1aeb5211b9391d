package host

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
)

// hostCompress serves the compress import: zlib's formats for node:zlib,
// pure computation on the guest's bytes, with no capability needed.
func hostCompress(_ context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	req, code := guestMessage(mod, stack, abi.DecodeCompressRequest)
	if code != 0 {
		return code
	}
	out, cerr := compress(req)
	return inv.replyJSON(abi.CompressReply{Bytes: out, Error: cerr})
}

// errTooLarge is an output over abi.MaxCompressOutput.
var errTooLarge = errors.New("over the limit")

// compress performs req, or says why it failed as Node's zlib would.
func compress(req abi.CompressRequest) ([]byte, *abi.CompressError) {
	level := flate.DefaultCompression
	if req.Level != nil {
		level = *req.Level
	}
	var out bytes.Buffer
	limited := &limitedWriter{w: &out, left: abi.MaxCompressOutput}
	var err error
	switch req.Op {
	case "deflate", "gzip", "deflateRaw":
		err = compressTo(limited, req.Op, level, req.Data)
	default:
		err = decompressTo(limited, req.Op, req.Data)
	}
	if err != nil {
		return nil, zlibError(err)
	}
	return out.Bytes(), nil
}

func compressTo(w io.Writer, op string, level int, data []byte) error {
	var zw io.WriteCloser
	var err error
	switch op {
	case "deflate":
		zw, err = zlib.NewWriterLevel(w, level)
	case "gzip":
		zw, err = gzip.NewWriterLevel(w, level)
	default:
		zw, err = flate.NewWriter(w, level)
	}
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

func decompressTo(w io.Writer, op string, data []byte) error {
	in := bytes.NewReader(data)
	if op == "unzip" {
		op = "inflate"
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			op = "gunzip"
		}
	}
	// zlib looks at the first two bytes before it needs more; Go's readers
	// read the whole header first, and would call bad data short.
	if len(data) >= 2 {
		switch {
		case op == "gunzip" && (data[0] != 0x1f || data[1] != 0x8b):
			return gzip.ErrHeader
		case op == "inflate" && (data[0]&0x0f != 8 || (uint16(data[0])<<8|uint16(data[1]))%31 != 0):
			return zlib.ErrHeader
		}
	}
	var zr io.Reader
	switch op {
	case "inflate":
		r, err := zlib.NewReader(in)
		if err != nil {
			return err
		}
		zr = r
	case "gunzip":
		r, err := gzip.NewReader(in)
		if err != nil {
			return err
		}
		zr = r
	default:
		zr = flate.NewReader(in)
	}
	_, err := io.Copy(w, zr)
	return err
}

// zlibError is err as Node's zlib reports it: its code, errno and words.
func zlibError(err error) *abi.CompressError {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, errTooLarge):
		return &abi.CompressError{Code: "ERR_BUFFER_TOO_LARGE", Message: fmt.Sprintf("Cannot create a Buffer larger than %d bytes", abi.MaxCompressOutput)}
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, gzip.ErrHeader):
		return &abi.CompressError{Code: "Z_DATA_ERROR", Errno: -3, Message: "incorrect header check"}
	case errors.Is(err, zlib.ErrChecksum), errors.Is(err, gzip.ErrChecksum):
		return &abi.CompressError{Code: "Z_DATA_ERROR", Errno: -3, Message: "incorrect data check"}
	case errors.As(err, &corrupt):
		return &abi.CompressError{Code: "Z_DATA_ERROR", Errno: -3, Message: "invalid block type"}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &abi.CompressError{Code: "Z_BUF_ERROR", Errno: -5, Message: "unexpected end of file"}
	}
	return &abi.CompressError{Code: "Z_DATA_ERROR", Errno: -3, Message: err.Error()}
}

// limitedWriter refuses writes past left bytes.
type limitedWriter struct {
	w    io.Writer
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.left {
		return 0, errTooLarge
	}
	l.left -= len(p)
	return l.w.Write(p)
}
