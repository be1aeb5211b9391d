package bolt

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// openTest opens a new engine on a file of the test's, closed (and
// checked) when the test ends.
func openTest(t testing.TB) *Engine {
	t.Helper()
	e, err := Open(filepath.Join(t.TempDir(), "fount.db"), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		checkFile(t, e)
		_ = e.Close()
	})
	return e
}

// checkFile fails t when bbolt finds e's file inconsistent.
func checkFile(t testing.TB, e *Engine) {
	t.Helper()
	if err := Inspect(e).Check(); err != nil {
		t.Errorf("bbolt check: %v", err)
	}
}

// must returns v, or panics with err: for values a test cannot go on
// without.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var ctx = context.Background()

// wantErr fails t unless err matches want (nil: no error).
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func deliveryIDs(list []model.Delivery) []string {
	ids := []string{}
	for _, d := range list {
		ids = append(ids, d.ID)
	}
	return ids
}
