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
	return sourceIfUsed(webUse, guest.Web, code, modules)
}

// intlUse finds the Intl global in code, or the locale methods it makes
// act as Node's.
var intlUse = regexp.MustCompile(`\b(Intl|toLocaleString|toLocaleDateString|toLocaleTimeString|localeCompare)\b`)

// intlFor is the source of the Intl global when code or its modules name
// it or a locale method, else "", for the same reason as webFor.
func intlFor(code string, modules map[string]string) string {
	return sourceIfUsed(intlUse, guest.Intl, code, modules)
}

// sourceIfUsed is src when use matches code or one of its modules, else "".
func sourceIfUsed(use *regexp.Regexp, src []byte, code string, modules map[string]string) string {
	if use.MatchString(code) {
		return string(src)
	}
	for _, m := range modules {
		if use.MatchString(m) {
			return string(src)
		}
	}
	return ""
}
