package api

import (
	"fmt"
	"net/http"

	"github.com/fount-dev/fount/internal/model"
)

// errLimit answers a create refused by the store because the account
// holds its limit: 403, not 429, because waiting does not help (the
// account must delete something, or the operator raise the limit), and
// clients retry a 429 by themselves.
func errLimit(e *model.LimitError) *Error {
	held := fmt.Sprintf("The account %s already has %d %s", e.Account, e.Max, e.Kind)
	remedy := "delete some first, or ask the server's operator to raise it"
	switch e.Kind {
	case model.CountOrgs:
		held = fmt.Sprintf("The user %s already belongs to %d organizations", e.Account, e.Max)
		remedy = "ask the server's operator to raise it" // no one can leave an organization yet
	case model.CountSubscriptions:
		held += " (auto-subscriptions included)"
	case model.CountComponents:
		// Components cannot be deleted; those nothing uses make room by
		// themselves (store.CreateComponent).
		held = fmt.Sprintf("The account %s already has %d saved components, each run by a source or the newest of its key", e.Account, e.Max)
		remedy = "delete sources you no longer need, or ask the server's operator to raise it"
	}
	return &Error{Status: http.StatusForbidden, Code: "limit_reached", Message: fmt.Sprintf(
		"%s, the limit of this server (%s); %s.", held, limitSetting(e.Kind), remedy)}
}

// limitSetting names the `fount serve` flag and environment variable that
// set a limit (cmd/fount's TestCapsOfAServer checks that they do).
func limitSetting(kind model.Counted) string {
	switch kind {
	case model.CountSources:
		return "--max-sources-per-account, FOUNT_MAX_SOURCES_PER_ACCOUNT"
	case model.CountComponents:
		return "--max-components-per-account, FOUNT_MAX_COMPONENTS_PER_ACCOUNT"
	case model.CountWebhooks:
		return "--max-webhooks-per-account, FOUNT_MAX_WEBHOOKS_PER_ACCOUNT"
	case model.CountWorkflows:
		return "--max-workflows-per-account, FOUNT_MAX_WORKFLOWS_PER_ACCOUNT"
	case model.CountSubscriptions:
		return "--max-subscriptions-per-account, FOUNT_MAX_SUBSCRIPTIONS_PER_ACCOUNT"
	case model.CountOrgs:
		return "--max-orgs-per-user, FOUNT_MAX_ORGS_PER_USER"
	case model.CountAccounts:
		return "--max-connected-accounts-per-account, FOUNT_MAX_CONNECTED_ACCOUNTS_PER_ACCOUNT"
	}
	return string(kind)
}
