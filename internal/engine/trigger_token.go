package engine

import (
	"fmt"
	"regexp"

	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// A workflow's HTTP trigger may ask for a static bearer token, which
// the ingress checks before it reads the body or queues anything. Only the
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
	return ingress.HashToken(token), nil
}
