package model

// Plans of a user.
const (
	PlanFree = "free"
	PlanPaid = "paid"
)

// User is an account.
type User struct {
	ID        string `json:"id"` // u_...
	Username  string `json:"username"`
	Email     string `json:"email"`
	Plan      string `json:"plan"`  // PlanFree or PlanPaid
	Owner     bool   `json:"owner"` // the server's owner, created on first start; may administer
	CreatedAt int64  `json:"created_at"`
}

// Org is an organization; its members may use its resources.
type Org struct {
	ID        string   `json:"id"` // o_...
	Orgname   string   `json:"orgname"`
	Name      string   `json:"name"`
	Email     string   `json:"email"`
	Members   []string `json:"members"` // user ids, in the order they joined
	CreatedAt int64    `json:"created_at"`
}

// ConnectedAccount is an app's credentials, behind the $auth of the app
// props configured with it ({"authProvisionId": "apn_..."}).
type ConnectedAccount struct {
	ID      string `json:"id"`       // apn_...
	OwnerID string `json:"owner_id"` // the user or organization whose sources may use it
	UserID  string `json:"user_id"`  // who created it
	App     string `json:"app"`      // the app's slug, as in an app prop's app
	Name    string `json:"name"`
	// Fields are the credential fields, each value sealed by the engine
	// (bound to the account and the field's name) before it is stored.
	Fields    map[string]string `json:"fields"`
	CreatedAt int64             `json:"created_at"`
	UpdatedAt int64             `json:"updated_at"`
}
