package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// A workflow's HTTP trigger may ask for a static bearer token, which
// fount checks before it reads the body or queues anything. Only the
// token's sha256 is stored, as for API keys: the token cannot be read
// back, and a view shows only that there is one.

// bearerToken is what a trigger token may be: RFC 6750's b64token, 16 to
// 256 characters.
var bearerToken = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]{16,256}=*$`)

// triggerTokenHash is the hash to store for token: "" for none, the
// previous trigger's for secret.Marker (an update that keeps it).
func triggerTokenHash(token string, previous *model.Workflow) (string, error) {
	switch {
	case token == "":
		return "", nil
	case token == secret.Marker:
		if previous == nil || previous.Trigger.TokenHash == "" {
			return "", &WorkflowError{Reason: fmt.Sprintf("the trigger's token is %s, but no token is stored to keep: give the token itself", secret.Marker)}
		}
		return previous.Trigger.TokenHash, nil
	case len(token) > 300 || !bearerToken.MatchString(token):
		return "", &WorkflowError{Reason: "the trigger's token must be 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + /, then = padding"}
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:]), nil
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
