package ingress

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/fount-dev/fount/abi"
)

// TestEndpointResponsesCookies: an endpoint's cookies reach that
// endpoint only, on a host name of the endpoints' own; on the dashboard's
// host it sets none; and it never clears a site's data.
func TestEndpointResponsesCookies(t *testing.T) {
	t.Parallel()
	const path = "/h/tok"
	tests := []struct {
		name, header, value, path string
		want                      []string
	}{
		{"scoped to the endpoint", "Set-Cookie", "a=1; Path=/; Max-Age=60", path, []string{"a=1; Path=/h/tok; Max-Age=60"}},
		{"no domain", "set-cookie", "a=1; Domain=example.org; Secure; HttpOnly; SameSite=Lax", path, []string{"a=1; Path=/h/tok; HttpOnly; Secure; SameSite=Lax"}},
		{"fount's own", "Set-Cookie", "fount_session=x", path, nil},
		{"a __Host- cookie needs Path=/", "Set-Cookie", "__Host-a=1; Path=/; Secure", path, nil},
		{"unparsable", "Set-Cookie", "=; ;", path, nil},
		{"on the dashboard's host, none", "Set-Cookie", "a=1", "", nil},
		{"Clear-Site-Data", "Clear-Site-Data", `"cookies"`, path, nil},
		{"Clear-Site-Data on the dashboard's host", "clear-site-data", `"*"`, "", nil},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		writeResponse(w, abi.Response{Status: 200, Headers: map[string]string{tt.header: tt.value}}, tt.path)
		got := w.Result().Header.Values("Set-Cookie")
		if !reflect.DeepEqual(got, tt.want) || w.Result().Header.Get("Clear-Site-Data") != "" {
			t.Errorf("%s: Set-Cookie %q, Clear-Site-Data %q; want %q and none", tt.name, got, w.Result().Header.Get("Clear-Site-Data"), tt.want)
		}
	}
}
