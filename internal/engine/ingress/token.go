package ingress

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// A workflow's HTTP trigger may ask for a static bearer token, which the
// ingress checks before it reads the body or queues anything. Only the
// token's hash is kept (HashToken), as for API keys.

// HashToken is how an endpoint keeps its bearer token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// authorized reports whether r carries the bearer token whose hash is
// tokenHash (always, when tokenHash is empty).
func authorized(r *http.Request, tokenHash string) bool {
	if tokenHash == "" {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	want, err := hex.DecodeString(tokenHash)
	return err == nil && subtle.ConstantTimeCompare(sum[:], want) == 1
}
