package abi

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCHeaderIsUpToDate(t *testing.T) {
	t.Parallel()
	committed, err := os.ReadFile(filepath.Join("..", "guest", "src", "fount_abi.h"))
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != CHeader() {
		t.Fatal("guest/src/fount_abi.h differs from abi.CHeader(): run `make guest-header` (and `make guest`)")
	}
}

func TestEveryHostFuncHasASignature(t *testing.T) {
	t.Parallel()
	if len(hostFuncSignatures) != len(HostFuncs) {
		t.Fatalf("%d signatures for %d host functions", len(hostFuncSignatures), len(HostFuncs))
	}
	for _, name := range HostFuncs {
		if hostFuncSignatures[name] == "" {
			t.Errorf("host function %s has no C signature", name)
		}
	}
}

func TestABIDocumentsEveryImport(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(append([]string{}, HostFuncs...), WASIImports...) {
		if !strings.Contains(string(doc), "### `"+name+"(") {
			t.Errorf("ABI.md does not document %s", name)
		}
	}
	for _, e := range ErrorCodes {
		if !strings.Contains(string(doc), e.Name) {
			t.Errorf("ABI.md does not document %s", e.Name)
		}
	}
}

func TestDecodeEmit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantErr  string
		wantID   string
	}{
		{"minimal", `{}`, "", ""},
		{"full", `{"event":{"a":1},"id":"x1","name":"ch","summary":"s","ts":1,"delivery_ts":2}`, "", "x1"},
		{"numeric id", `{"id":12.5}`, "", "12.5"},
		{"object id", `{"id":{}}`, "string or a number", ""},
		{"bool id", `{"id":true}`, "string or a number", ""},
		{"null id", `{"id":null}`, "not null", ""},
		{"long id", `{"id":"` + strings.Repeat("i", MaxEmitID+1) + `"}`, "emit id is longer", ""},
		{"long name", `{"name":"` + strings.Repeat("n", MaxEmitName+1) + `"}`, "emit name is longer", ""},
		{"long summary", `{"summary":"` + strings.Repeat("s", MaxEmitSummary+1) + `"}`, "emit summary is longer", ""},
		{"negative ts", `{"ts":-1}`, "ts must not be negative", ""},
		{"negative delivery", `{"delivery_ts":-5}`, "delivery_ts must not be negative", ""},
		{"fractional ts", `{"ts":1.5}`, "invalid guest message", ""},
		{"unknown field", `{"evil":1}`, "unknown field", ""},
		{"trailing data", `{} {}`, "trailing data", ""},
		{"not json", `{`, "invalid guest message", ""},
		{"invalid utf8", "{\"name\":\"\xc3\x28\"}", "UTF-8", ""},
		{"oversize", `{"event":"` + strings.Repeat("x", MaxMessage) + `"}`, "over the", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := DecodeEmit([]byte(tt.in))
			checkDecodeErr(t, err, tt.wantErr)
			if err == nil && e.IDString() != tt.wantID {
				t.Errorf("id = %q, want %q", e.IDString(), tt.wantID)
			}
		})
	}
}

func TestDecodeResponse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, wantErr string }{
		{"ok", `{"status":200,"headers":{"Content-Type":"text/plain"},"body":"hi"}`, ""},
		{"base64", `{"status":200,"body":"AA==","body_encoding":"base64"}`, ""},
		{"lowest", `{"status":100}`, ""},
		{"highest", `{"status":599}`, ""},
		{"missing status", `{}`, "outside 100-599"},
		{"status 600", `{"status":600}`, "outside 100-599"},
		{"bad encoding", `{"status":200,"body_encoding":"hex"}`, "unknown body_encoding"},
		{"header name with space", `{"status":200,"headers":{"a b":"c"}}`, "not valid"},
		{"header value with CRLF", `{"status":200,"headers":{"a":"b\r\nc: d"}}`, "control character"},
		{"header value with NUL", `{"status":200,"headers":{"a":"b\u0000"}}`, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeResponse([]byte(tt.in))
			checkDecodeErr(t, err, tt.wantErr)
		})
	}
}

func TestDecodeFetchRequest(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, wantErr string }{
		{"get", `{"url":"https://example.com/x"}`, ""},
		{"post", `{"url":"https://example.com","method":"POST","headers":{"X-A":"1"},"body":"{}"}`, ""},
		{"no url", `{}`, "url is empty"},
		{"bad method", `{"url":"http://x","method":"GE T"}`, "not a valid HTTP method"},
		{"bad header", `{"url":"http://x","headers":{"":"v"}}`, "not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeFetchRequest([]byte(tt.in))
			checkDecodeErr(t, err, tt.wantErr)
			if err == nil && r.Method == "" {
				t.Errorf("method not defaulted")
			}
		})
	}
}

func TestDecodeResult(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("aB3-_", 6) + "xy"
	tests := []struct{ name, in, wantErr string }{
		{"ok", `{"ok":true,"value":{"a":1},"exports":{"x":1},"exit":"r","dropped":2}`, ""},
		{"error", `{"ok":false,"error":{"name":"TypeError","message":"m","stack":"s"}}`, ""},
		{"failure without error", `{"ok":false}`, "carries no error"},
		{"unknown field", `{"ok":true,"x":1}`, "unknown field"},
		{"over MaxMessage but within MaxResultBytes", `{"ok":true,"value":"` + strings.Repeat("r", MaxMessage) + `"}`, ""},
		{"over MaxResultBytes", `{"ok":true,"value":"` + strings.Repeat("r", MaxResultBytes) + `"}`, "over the"},
		{"delay", `{"ok":true,"flow":{"kind":"delay","ms":1000,"secret":"` + secret + `"}}`, ""},
		{"rerun", `{"ok":true,"flow":{"kind":"rerun","ms":0,"secret":"` + secret + `","context":{"n":1},"max_reruns":3}}`, ""},
		{"flow of unknown kind", `{"ok":true,"flow":{"kind":"sleep","ms":1,"secret":"` + secret + `"}}`, "unknown kind"},
		{"negative delay", `{"ok":true,"flow":{"kind":"delay","ms":-1,"secret":"` + secret + `"}}`, "outside"},
		{"delay past a year", `{"ok":true,"flow":{"kind":"delay","ms":40000000000,"secret":"` + secret + `"}}`, "outside"},
		{"short secret", `{"ok":true,"flow":{"kind":"suspend","ms":1,"secret":"abc"}}`, "secret"},
		{"secret with a slash", `{"ok":true,"flow":{"kind":"suspend","ms":1,"secret":"` + secret[:31] + `/"}}`, "secret"},
		{"context of a delay", `{"ok":true,"flow":{"kind":"delay","ms":1,"secret":"` + secret + `","context":1}}`, "only a rerun"},
		{"too many reruns", `{"ok":true,"flow":{"kind":"rerun","ms":1,"secret":"` + secret + `","max_reruns":10001}}`, "max_reruns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeResult([]byte(tt.in))
			checkDecodeErr(t, err, tt.wantErr)
		})
	}
}

// TestSettledWithNothingDecodesAsStrictly: the shortcut for the commonest
// result gives what the strict decoder gives.
func TestSettledWithNothingDecodesAsStrictly(t *testing.T) {
	t.Parallel()
	got, err := DecodeResult([]byte(settledWithNothing))
	if err != nil {
		t.Fatal(err)
	}
	var want Result
	if err := decodeStrictMax([]byte(settledWithNothing), &want, MaxResultBytes); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !got.OK {
		t.Fatalf("shortcut %+v, strict %+v", got, want)
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for level, want := range map[int32]string{LevelDebug: "debug", LevelInfo: "info", LevelWarn: "warn", LevelError: "error"} {
		if got, err := ParseLevel(level); err != nil || got != want {
			t.Errorf("ParseLevel(%d) = %q, %v", level, got, err)
		}
	}
	for _, bad := range []int32{-1, 4, 1 << 30} {
		if _, err := ParseLevel(bad); err == nil {
			t.Errorf("ParseLevel(%d) accepted", bad)
		}
	}
}

func checkDecodeErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil || !errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want an ErrDecode containing %q", err, want)
	}
}

func TestValidS3Prefix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prefix string
		ok     bool
	}{
		{"", true}, {"orders/", true}, {"a/b/c", true}, {"x-y_z.v!(1)*'", true},
		{"/abs", false}, {"a//b", false}, {"../up", false}, {"a/../b", false}, {"./a", false}, {"a/.", false},
		{"sp ace", false}, {"q?x", false}, {"%2e%2e", false}, {strings.Repeat("a", MaxS3Prefix+1), false},
	} {
		if err := ValidS3Prefix(c.prefix); (err == nil) != c.ok {
			t.Errorf("ValidS3Prefix(%q) = %v, want ok %v", c.prefix, err, c.ok)
		}
	}
}
