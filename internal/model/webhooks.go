package model

// Webhook is an account-level delivery URL.
type Webhook struct {
	ID            string  `json:"id"` // wh_...
	OwnerID       string  `json:"owner_id"`
	UserID        string  `json:"user_id"`
	Name          *string `json:"name"`
	Description   *string `json:"description"`
	URL           string  `json:"url"`
	Active        bool    `json:"active"`
	SigningSecret string  `json:"signing_secret"` // whsec_...
	// PreviousSecret also signs deliveries until PreviousUntilMs, after a
	// rotation, so that receivers can switch keys without a gap.
	PreviousSecret  string `json:"previous_secret,omitempty"`
	PreviousUntilMs int64  `json:"previous_until_ms,omitempty"`
	// ConsecutiveFailures counts the deliveries that failed for good in a
	// row, since FailingSinceMs; DisabledReason says why the engine
	// deactivated the webhook, if it did.
	ConsecutiveFailures int    `json:"consecutive_failures,omitempty"`
	FailingSinceMs      int64  `json:"failing_since_ms,omitempty"`
	DisabledReason      string `json:"disabled_reason,omitempty"`
	CreatedAt           int64  `json:"created_at"`
	UpdatedAt           int64  `json:"updated_at"`
}
