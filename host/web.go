package host

import (
	"regexp"
	"strings"

	"github.com/fount-dev/fount/guest"
)

// webUse finds a name of the web globals in code.
var webUse = regexp.MustCompile(`\b(` + strings.Join(guest.WebNames, "|") + `)\b`)

// webFor is the source of the web globals when code or its modules name
// one of them, else "": an instance that evaluated them holds about
// 300 KiB more, so only components that may use them get them. A name
// in a comment or a string is a false match, which costs memory only.
func webFor(code string, modules map[string]string) string {
	if webUse.MatchString(code) {
		return string(guest.Web)
	}
	for _, m := range modules {
		if webUse.MatchString(m) {
			return string(guest.Web)
		}
	}
	return ""
}
