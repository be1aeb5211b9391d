package ingress

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestParseBody(t *testing.T) {
	t.Parallel()
	multipart := "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n"
	tests := []struct {
		ct, body, want string
	}{
		{"application/json", `{"a":[1]}`, `{"a":[1]}`},
		{"application/json", `{"z":1,"a":12345678901234567890}`, `{"z":1,"a":12345678901234567890}`}, // its order, its digits: the guest parses it
		{"application/json", " [1, 2]\n", `[1,2]`},
		{"application/vnd.api+json", `{"a":1}`, `{"a":1}`},
		{"application/json", `{bad`, `"{bad"`},
		{"application/x-www-form-urlencoded", "a=1&b=2&b=3", `{"a":"1","b":["2","3"]}`},
		{"multipart/form-data; boundary=b", multipart, `{"a":"1","f":{"content_type":"text/plain","filename":"x.txt","size":5}}`},
		{"text/plain", "hi", `"hi"`},
		{"", "", `""`},
	}
	for _, tt := range tests {
		got, _ := json.Marshal(parseBody(tt.ct, []byte(tt.body)))
		if !bytes.Equal(got, []byte(tt.want)) {
			t.Errorf("parseBody(%q, %q) = %s, want %s", tt.ct, tt.body, got, tt.want)
		}
	}
}
