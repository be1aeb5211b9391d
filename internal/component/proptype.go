package component

import "strings"

// PropType is the type of a prop, as a component declares it.
type PropType string

// The prop types of the specification. A type with the suffix "[]" is an
// array of its element type; only boolean, integer and string have one.
const (
	// TypeApp is a connected account of an app. Its value is the app
	// object: the app's methods, and $auth with the account's
	// credentials. It takes no configured value.
	TypeApp PropType = "app"
	// TypeBoolean is true or false.
	TypeBoolean      PropType = "boolean"
	TypeBooleanArray PropType = "boolean[]"
	// TypeInteger is a whole number, within Min and Max when they are set.
	TypeInteger      PropType = "integer"
	TypeIntegerArray PropType = "integer[]"
	// TypeString is text. A Secret string is stored sealed and never
	// shown again.
	TypeString      PropType = "string"
	TypeStringArray PropType = "string[]"
	// TypeObject is a JSON object.
	TypeObject PropType = "object"
	// TypeAny is any JSON value (sources only).
	TypeAny PropType = "any"
	// TypeHTTP is the HTTP interface: fount gives the source an endpoint
	// URL, and every request to it runs the source. Its value is the
	// endpoint; nothing is configured.
	TypeHTTP PropType = "$.interface.http"
	// TypeTimer is the timer interface: the source runs on a cron
	// schedule or every IntervalSeconds. Its value is a TimerSpec.
	TypeTimer PropType = "$.interface.timer"
	// TypeDB is the source's key-value store ($.service.db): get and
	// set, kept across runs. Nothing is configured.
	TypeDB PropType = "$.service.db"
	// TypeHTTPRequest is Pipedream's HTTP request builder: a configured
	// {url, method, headers, params, body}, which the component sends
	// with execute(), through the egress policy.
	TypeHTTPRequest PropType = "http_request"
	// TypeAlert is a note shown to whoever configures the component
	// (Pipedream's alert prop: AlertType and Content). It takes no value
	// and gives none.
	TypeAlert PropType = "alert"
	// TypeAppHook is Pipedream's subscription to an app's own events
	// (AppProp, EventNames). fount has no feed of apps' events: it gives
	// the prop an HTTP endpoint, as TypeHTTP, for the app's webhooks to
	// be pointed at, and each request runs the source (docs/runtime.md).
	TypeAppHook PropType = "$.interface.apphook"
	// TypeDataStore is one of the account's data stores, by its id or
	// name (or {"data_store_id": id}, as Pipedream configures it): the
	// component reads and writes it with get, set, has, delete, keys,
	// entries and clear.
	TypeDataStore PropType = "data_store"
	// TypeDir is Pipedream's directory prop (accessMode, sync): a
	// directory the component reads and writes files in. fount gives the
	// call's /tmp (docs/runtime.md); nothing is configured. Pipedream
	// syncs such a directory with its File Stash, which fount has not.
	TypeDir PropType = "dir"
	// TypeSQL is Pipedream's SQL query prop (auth names the database
	// app): a query as text, or {query, params}; the component is given
	// {query, params} either way.
	TypeSQL PropType = "sql"
)

// PropTypes lists every known type, in the specification's order.
var PropTypes = []PropType{
	TypeApp, TypeBoolean, TypeBooleanArray, TypeInteger, TypeIntegerArray,
	TypeString, TypeStringArray, TypeObject, TypeAny, TypeHTTP, TypeTimer, TypeDB, TypeHTTPRequest, TypeAlert, TypeAppHook,
	TypeDataStore, TypeDir, TypeSQL,
}

// Known reports whether t is one of PropTypes.
func (t PropType) Known() bool {
	for _, k := range PropTypes {
		if t == k {
			return true
		}
	}
	return false
}

// Elem returns the element type of an array type, and whether t is one.
func (t PropType) Elem() (PropType, bool) {
	e, ok := strings.CutSuffix(string(t), "[]")
	return PropType(e), ok
}
