package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/api"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// minBootstrapKey is the shortest owner key FOUNT_BOOTSTRAP_API_KEY may
// set: the key is all that stands between the network and every tenant.
const minBootstrapKey = 32

// bootstrapOwner creates the owner user on an empty data dir. Its key is
// FOUNT_BOOTSTRAP_API_KEY when set; otherwise a random key, printed once and
// written to <data-dir>/owner.key (mode 0600).
func bootstrapOwner(ctx context.Context, st store.Store, cfg Config, stdout io.Writer) error {
	n, err := st.CountUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	key := strings.TrimSpace(cfg.BootstrapKey)
	generated := key == ""
	if generated {
		key = api.NewAPIKey()
	} else if len(key) < minBootstrapKey {
		return fmt.Errorf("FOUNT_BOOTSTRAP_API_KEY has %d characters: the owner's key needs at least %d (leave it unset for a random one)", len(key), minBootstrapKey)
	}
	// The owner runs the server: no daily quota holds it back (the paid
	// plan has none); the users it creates get the plan it gives them.
	owner := model.User{ID: ids.New(ids.User), Username: "owner", Email: "owner@localhost", Plan: model.PlanPaid, Owner: true, CreatedAt: time.Now().Unix()}
	err = st.CreateUser(ctx, owner, api.HashKey(key))
	if errors.Is(err, model.ErrConflict) {
		// Another node sharing the store created the owner meanwhile
		// (with FOUNT_BOOTSTRAP_API_KEY, the same key).
		fmt.Fprintln(stdout, "the owner was created by another node sharing the store")
		return nil
	}
	if err != nil {
		return fmt.Errorf("create owner: %w", err)
	}
	if generated {
		path := filepath.Join(cfg.DataDir, "owner.key")
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			return fmt.Errorf("write owner key: %w", err)
		}
		fmt.Fprintf(stdout, "created the owner user; its API key (shown once, also in %s):\n%s\n", path, key)
	}
	return nil
}

// limitsOf are the sandbox limits the flags set; the rest are the host's
// defaults.
