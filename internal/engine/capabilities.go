package engine

import (
	"context"

	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// sourceDB is a source's $.service.db in the store.
type sourceDB struct {
	st store.Store
	id string
}

func (d sourceDB) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return d.st.DBGet(ctx, d.id, key)
}

func (d sourceDB) Set(ctx context.Context, key string, value []byte) error {
	return d.st.DBSet(ctx, d.id, key, value)
}

// capabilities are what a run or hook of l may reach: emits and logs into
// c, the source's db, $auth (noting in gone the accounts that are gone),
// and fetch through the egress policy.
func (e *Engine) capabilities(l *source.Live, c *emit.Collector, gone *goneAccounts) sandbox.Capabilities {
	caps := sandbox.Capabilities{Emit: c, Log: c, DB: sourceDB{e.store, l.Source.ID}, Auth: accountAuth{e, l.Source.OwnerID, l.Source.ConfiguredProps, gone},
		Stores: dataStores{e, l.Source.OwnerID, l.Source.ConfiguredProps}}
	if e.cfg.Egress != nil {
		caps.Egress = e.cfg.Egress
	}
	return caps
}
