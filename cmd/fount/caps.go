package main

import (
	"flag"
	"fmt"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// capFlag is a per-account limit of `fount serve`: its flag, environment
// variable, default and what it caps. 0 is no limit.
type capFlag struct {
	name, env string
	kind      model.Counted
	def       int64
	usage     string
}

// capFlags returns the per-account limits, so that one tenant cannot take the
// server's memory or disk by creating without end. The defaults leave room
// for real use: 500 sources (a live source costs megabytes of sandbox
// memory), 1000 saved components (each version of code saved; saving
// unchanged code again adds none), 100 webhooks, 500 workflows (as many as
// sources: each step is a live sandbox), 2000 subscriptions (four per
// source at the source limit), 50 data stores and 20 organizations per
// user.
func capFlags() []capFlag {
	return []capFlag{
		{"max-sources-per-account", "FOUNT_MAX_SOURCES_PER_ACCOUNT", model.CountSources, 500, "sources an account (user or organization) may have"},
		{"max-components-per-account", "FOUNT_MAX_COMPONENTS_PER_ACCOUNT", model.CountComponents, 1000, "saved components (versions of code) an account may have"},
		{"max-webhooks-per-account", "FOUNT_MAX_WEBHOOKS_PER_ACCOUNT", model.CountWebhooks, 100, "webhooks an account may have"},
		{"max-workflows-per-account", "FOUNT_MAX_WORKFLOWS_PER_ACCOUNT", model.CountWorkflows, 500, "workflows an account may have"},
		{"max-connected-accounts-per-account", "FOUNT_MAX_CONNECTED_ACCOUNTS_PER_ACCOUNT", model.CountAccounts, 200, "connected accounts (apps' credentials) an account may have"},
		{"max-data-stores-per-account", "FOUNT_MAX_DATA_STORES_PER_ACCOUNT", model.CountDataStores, 50, "data stores an account may have"},
		{"max-subscriptions-per-account", "FOUNT_MAX_SUBSCRIPTIONS_PER_ACCOUNT", model.CountSubscriptions, 2000, "subscriptions and auto-subscriptions an account may have"},
		{"max-orgs-per-user", "FOUNT_MAX_ORGS_PER_USER", model.CountOrgs, 20, "organizations a user may belong to"},
	}
}

// addCapFlags defines the limit flags on fs; the returned function gives
// the limits once fs is parsed, or an error naming a negative one.
func addCapFlags(fs *flag.FlagSet, env environment) func() (store.Limits, error) {
	caps := capFlags()
	values := make([]*int64, len(caps))
	for i, c := range caps {
		values[i] = fs.Int64(c.name, env.int(c.env, c.def), fmt.Sprintf("%s; 0: no limit (%s)", c.usage, c.env))
	}
	return func() (store.Limits, error) {
		limits := store.Limits{}
		for i, c := range caps {
			if *values[i] < 0 {
				return nil, fmt.Errorf("--%s must be 0 (no limit) or more, got %d", c.name, *values[i])
			}
			limits[c.kind] = int(*values[i])
		}
		return limits, nil
	}
}
