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

// intlUse finds the Intl global in code, or the locale methods it makes
// act as Node's.
var intlUse = regexp.MustCompile(`\b(Intl|toLocaleString|toLocaleDateString|toLocaleTimeString|localeCompare)\b`)

// intlFor is the source of the Intl global when code or its modules name
// it or a locale method, else "", for the same reason as webFor.
func intlFor(code string, modules map[string]string) string {
	if intlUse.MatchString(code) {
		return string(guest.Intl)
	}
	for _, m := range modules {
		if intlUse.MatchString(m) {
			return string(guest.Intl)
		}
	}
	return ""
}
