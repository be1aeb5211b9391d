package host

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/fount-dev/fount/abi"
)

// TestCompressStopsABomb: what an op produces is capped, so 4 MiB of
// zeros, which gzip packs into a few KiB, do not come out.
func TestCompressStopsABomb(t *testing.T) {
	t.Parallel()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 4<<20))
	zw.Close()
	if _, err := compress(abi.CompressRequest{Op: "gunzip", Data: bomb.Bytes()}); err == nil || err.Code != "ERR_BUFFER_TOO_LARGE" {
		t.Fatalf("a %d-byte bomb: %+v", bomb.Len(), err)
	}
	out, err := compress(abi.CompressRequest{Op: "gunzip", Data: bomb.Bytes()[:0]})
	if err == nil || err.Code != "Z_BUF_ERROR" {
		t.Fatalf("empty input: %v %+v", out, err)
	}
	small := make([]byte, abi.MaxCompressOutput)
	packed, cerr := compress(abi.CompressRequest{Op: "deflate", Data: small})
	if cerr != nil {
		t.Fatal(cerr)
	}
	if back, cerr := compress(abi.CompressRequest{Op: "unzip", Data: packed}); cerr != nil || len(back) != len(small) {
		t.Fatalf("exactly the limit: %d %+v", len(back), cerr)
	}
}
