package engine

import (
	"context"
	"encoding/json"

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
// c, the source's db, and its owner's accounts, data stores and egress
// (reach).
func (e *Engine) capabilities(l *source.Live, c *emit.Collector, gone *goneAccounts) sandbox.Capabilities {
	caps := e.reach(l.Source.OwnerID, l.Source.ConfiguredProps, gone)
	caps.Emit, caps.Log, caps.DB = c, c, sourceDB{e.store, l.Source.ID}
	return caps
}

// reach is what code of owner configured with props may reach beyond its
// own call: $auth of its app props (noting in gone the accounts that are
// gone), its data-store props, and fetch through the egress policy. A
// source's runs and hooks and a workflow's steps reach alike.
func (e *Engine) reach(owner string, props map[string]json.RawMessage, gone *goneAccounts) sandbox.Capabilities {
	caps := sandbox.Capabilities{Auth: accountAuth{e, owner, props, gone}, Stores: dataStores{e, owner, props}}
	if e.cfg.Egress != nil {
		caps.Egress = e.cfg.Egress
	}
	return caps
}
