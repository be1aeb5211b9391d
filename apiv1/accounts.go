package apiv1

// Connected accounts are a fount extension: an app's credentials, behind
// the $auth of app props configured with {"authProvisionId": "apn_..."}.

// CreateAccountRequest creates a connected account.
type CreateAccountRequest struct {
	Common
	App              string            `json:"app" required:"true" maxLength:"64" description:"the app's slug, as an app prop names it (type: \"app\", app: \"github\")"`
	Name             string            `json:"name" required:"true" maxLength:"256"`
	OAuthAccessToken string            `json:"oauth_access_token,omitempty" maxLength:"16384" description:"the OAuth access token; becomes $auth.oauth_access_token"`
	APIKey           string            `json:"api_key,omitempty" maxLength:"16384" description:"the API key; becomes $auth.api_key"`
	Fields           map[string]string `json:"fields,omitempty" description:"any other credential fields the app needs, each a $auth field"`
}

// AccountByIDRequest names a connected account.
type AccountByIDRequest struct {
	Common
	ByID
}

// DeleteAccountRequest deletes a connected account.
type DeleteAccountRequest struct {
	Common
	ByID
	Force bool `query:"force" json:"-" description:"delete it even if app props are configured with it; they then fail where they read $auth"`
}

// Account is a connected account. Its credentials are never returned.
type Account struct {
	ID        string   `json:"id" required:"true" description:"apn_ id"`
	App       string   `json:"app" required:"true"`
	Name      string   `json:"name" required:"true"`
	OwnerID   string   `json:"owner_id" required:"true" description:"the user or organization whose sources may use it"`
	FieldsSet []string `json:"fields_set" required:"true" nullable:"false" description:"the credential fields it holds, by name; their values are never shown"`
	CreatedAt int64    `json:"created_at" required:"true"`
	UpdatedAt int64    `json:"updated_at" required:"true"`
}
