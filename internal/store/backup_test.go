package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/model"
)

// TestBackupWhileWriting: a backup taken while writers grow the store
// gives its header the size it then writes, and the copy opens with
// what it held (a size read apart from the copy was short once the file
// grew, and the archive's entry failed). bbolt only: Backuper is the
// file's copy; a JetStream store is backed up by NATS's own tools.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	s := openTestBolt(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // grows the file: events of 64 KiB each
		defer wg.Done()
		data := json.RawMessage(`"` + strings.Repeat("x", 64<<10) + `"`)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.AppendEvents(ctx, fmt.Sprintf("dc_%d", i%50), []model.Event{{Data: data}}, 1000); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	var copyOf bytes.Buffer
	for range 20 {
		copyOf.Reset()
		var size int64
		err := s.Backup(ctx, func(n int64) (io.Writer, error) { size = n; return &copyOf, nil })
		if err != nil {
			t.Fatal(err)
		}
		if int64(copyOf.Len()) != size {
			t.Fatalf("the backup wrote %d bytes after a header of %d", copyOf.Len(), size)
		}
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, copyOf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := OpenBolt(path)
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer c.Close()
	if _, err := c.GetComponent(ctx, "sc_fixture"); err != nil {
		t.Errorf("the copy lost a record: %v", err)
	}
}
