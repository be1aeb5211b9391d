// Package ids mints and recognises fount's resource ids. An id is its
// kind's prefix (the specification's dc_, sc_, p_, wh_, sub_, u_, o_)
// followed by 128 random bits in unpadded base64url, so it is URL-safe and
// unguessable; the ids of a workflow's steps and deployed versions (c_,
// d_) are derived from what names them instead (Derive). Code that needs
// to know what an id names asks this package, never the string's first
// bytes itself.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
)

// Kind is the kind of resource an id names; its value is the id prefix.
type Kind string

// The kinds of the specification.
const (
	Source       Kind = "dc_" // a deployed component
	Component    Kind = "sc_" // a saved component
	Workflow     Kind = "p_"
	Webhook      Kind = "wh_"
	Subscription Kind = "sub_"
	User         Kind = "u_"
	Org          Kind = "o_"
	// Account is a connected account of an app (a fount extension, with
	// Pipedream's prefix): credentials behind an app prop's $auth.
	Account Kind = "apn_"
	// DataStore is a data store of an account (a fount extension, with
	// Pipedream's prefix).
	DataStore Kind = "ds_"
)

// Kinds lists every kind of resource.
var Kinds = []Kind{Source, Component, Workflow, Webhook, Subscription, User, Org, Account, DataStore}

// Parts of a workflow, named but never fetched alone (so not in Kinds):
// a step (the specification's cell) and a deployed version of the
// workflow. Their ids are derived (Derive), not minted.
const (
	Cell       Kind = "c_"
	Deployment Kind = "d_"
	// Execution is a workflow's execution: its id names its workflow and
	// the invocation it ran (ExecutionID).
	Execution Kind = "ex_"
)

// ExecutionID is the id of the execution of a workflow's invocation: the
// workflow's random part and the invocation's id, so that a retried
// invocation records the same execution and finding one needs no index.
func ExecutionID(workflowID, invocationID string) string {
	return string(Execution) + strings.TrimPrefix(workflowID, string(Workflow)) + "-" + invocationID
}

// ParseExecutionID returns the workflow and invocation ids an execution
// id made by ExecutionID names, or false.
func ParseExecutionID(id string) (workflowID, invocationID string, ok bool) {
	rest, ok := strings.CutPrefix(id, string(Execution))
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return string(Workflow) + rest[:i], rest[i+1:], true
}

// Derive returns the id of kind k that parts name: the same parts give
// the same id, so what is identified by what it belongs to (a step by its
// workflow and name) keeps its id without one being stored. It looks
// like a minted id: 128 bits of a hash of k and parts, in unpadded
// base64url. Derived ids are names, not secrets.
func Derive(k Kind, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(k))
	for _, p := range parts {
		h.Write(binary.AppendUvarint(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	return string(k) + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:randomBytes])
}

// randomBytes is the randomness of an id: 128 bits.
const randomBytes = 16

// New returns a new id of kind k.
func New(k Kind) string { return string(k) + Random() }

// Random returns 128 random bits from crypto/rand in unpadded base64url
// (22 characters): an id without a kind, for emits and reply addresses.
func Random() string {
	b := make([]byte, randomBytes)
	_, _ = rand.Read(b) // never fails since Go 1.24; it crashes the program instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// Is reports whether id names a resource of kind k: it has k's prefix and
// something after it. A glob such as "dc_*" is not an id.
func Is(id string, k Kind) bool {
	rest, ok := strings.CutPrefix(id, string(k))
	return ok && rest != "" && rest != "*"
}

// Of returns the kind of id, or false when id has no known prefix.
func Of(id string) (Kind, bool) {
	for _, k := range Kinds {
		if Is(id, k) {
			return k, true
		}
	}
	return "", false
}

// Glob is the emitter glob of a kind: "dc_*" for every source, "p_*" for
// every workflow (the specification's subscription globs).
func (k Kind) Glob() string { return string(k) + "*" }

// GlobOf returns the kind a glob covers, or false when s is not one of the
// specification's globs (dc_* and p_*).
func GlobOf(s string) (Kind, bool) {
	switch s {
	case Source.Glob():
		return Source, true
	case Workflow.Glob():
		return Workflow, true
	}
	return "", false
}

// NamesEmitters reports whether s names emitters of events: a source's or a
// workflow's id, or a glob of either kind.
func NamesEmitters(s string) bool {
	kind, ok := Of(s)
	if !ok {
		kind, ok = GlobOf(s)
	}
	return ok && (kind == Source || kind == Workflow)
}

// Matches reports whether emitter, an id or a glob, covers id.
func Matches(emitter, id string) bool {
	if k, ok := GlobOf(emitter); ok {
		return Is(id, k)
	}
	return emitter == id
}

// Noun names a kind in messages: "source", "webhook"...
func (k Kind) Noun() string {
	switch k {
	case Source:
		return "source"
	case Component:
		return "component"
	case Workflow:
		return "workflow"
	case Webhook:
		return "webhook"
	case Subscription:
		return "subscription"
	case User:
		return "user"
	case Org:
		return "organization"
	case Account:
		return "connected account"
	case DataStore:
		return "data store"
	}
	return "resource"
}
