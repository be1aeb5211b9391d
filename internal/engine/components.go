package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// Saving a component: its code described in the sandbox, with the npm
// packages it imports bundled in (packages.go), stored for deploys to
// start from.

// SaveComponent describes code in the sandbox and stores it as a saved
// component of owner, or returns the equal one owner saved before (see
// store.CreateComponent). Describing it evaluates it, as user's work (see
// inPool). Code that cannot be loaded is a *CodeError; a new component
// past owner's limit a *model.LimitError.
func (e *Engine) SaveComponent(ctx context.Context, owner, user, code, codeURL string, opts SaveOptions) (model.Component, error) {
	end, err := e.beginOp()
	if err != nil {
		return model.Component{}, err
	}
	defer end()
	lock, err := e.savedLock(ctx, owner, code, codeURL, opts)
	if err != nil {
		return model.Component{}, err
	}
	c := model.Component{Code: code, SourceMap: opts.SourceMap}
	meta, bundled, err := e.describeWithPackages(ctx, user, code, lock, func(code string) (*component.Metadata, error) {
		var meta *component.Metadata
		err := e.inPool(ctx, user, 0, func(ctx context.Context) error {
			var err error
			meta, err = e.sandbox.Introspect(ctx, code, "", nil)
			return err
		})
		return meta, err
	})
	if err != nil {
		return model.Component{}, codeError(err)
	}
	c.Bundle, c.BundleMap, c.Packages = bundled.Code, bundled.Map, bundled.Packages
	sum := sha256.Sum256([]byte(code))
	now := e.clock.Now().Unix()
	c.ID, c.OwnerID, c.Key, c.Name, c.Version = ids.New(ids.Component), owner, meta.Key, meta.Name, meta.Version
	c.CodeHash, c.ComponentURL, c.Metadata, c.CreatedAt, c.UpdatedAt = hex.EncodeToString(sum[:]), codeURL, *meta, now, now
	return e.store.CreateComponent(ctx, c)
}
