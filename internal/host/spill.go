package host

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// spill keeps the packed snapshots of idle sources in files instead of
// memory (Config.SpillDir). A snapshot holds the source's props, secrets
// included, so each file is sealed (AES-256-GCM) with a key made at
// random when the host starts and kept only in its memory: the files are
// unreadable to anyone who cannot read the process, and worthless once it
// exits. They live in a folder of their own, removed when the host
// closes.
type spill struct {
	dir      string
	aead     cipher.AEAD
	next     atomic.Uint64
	failedAt atomic.Int64 // unix ns of the last failed write
	budget   int64        // bytes the files may take together
	used     atomic.Int64 // bytes they take now
}

// spillBudget caps the spill files of one host: they share a disk with
// the store, whose commits must not fail because tenants' idle sources
// filled it. At ~100 KB a snapshot it holds some 40,000 sources; past it,
// snapshots stay in memory.
const spillBudget = 4 << 30

// errSpillFull is write's answer when the budget has no room.
var errSpillFull = errors.New("host: the spill budget is used up")

// spillBackoff is how long spilling pauses after a write fails (a full
// disk, say), rather than try every idle source at every tick.
const spillBackoff = time.Minute

func (sp *spill) failed() { sp.failedAt.Store(time.Now().UnixNano()) }

func (sp *spill) backingOff() bool {
	return time.Since(time.Unix(0, sp.failedAt.Load())) < spillBackoff
}

// spillPrefix names the folders of spill inside Config.SpillDir.
const spillPrefix = "snapshots-"

// newSpill makes a folder of its own in parent, after removing those that
// hosts which did not close (a crash, a kill) left there: their files
// cannot be opened without the keys that died with them.
func newSpill(parent string) (*spill, error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("host: spill folder: %w", err)
	}
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), spillPrefix) {
				_ = os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	dir, err := os.MkdirTemp(parent, spillPrefix)
	if err != nil {
		return nil, fmt.Errorf("host: spill folder: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &spill{dir: dir, aead: aead, budget: spillBudget}, nil
}

// write seals data into a new file and returns its name and size.
func (sp *spill) write(data []byte) (string, int64, error) {
	size := int64(sp.aead.NonceSize() + len(data) + sp.aead.Overhead())
	if sp.used.Add(size) > sp.budget {
		sp.used.Add(-size)
		return "", 0, errSpillFull
	}
	name, err := sp.writeFile(data)
	if err != nil {
		sp.used.Add(-size)
		return "", 0, err
	}
	return name, size, nil
}

func (sp *spill) writeFile(data []byte) (string, error) {
	nonce := make([]byte, sp.aead.NonceSize(), sp.aead.NonceSize()+len(data)+sp.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	name := strconv.FormatUint(sp.next.Add(1), 10)
	sealed := sp.aead.Seal(nonce, nonce, data, []byte(name))
	f, err := os.OpenFile(filepath.Join(sp.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("host: spill a snapshot: %w", err)
	}
	if _, err := f.Write(sealed); err != nil {
		f.Close()
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("host: spill a snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("host: spill a snapshot: %w", err)
	}
	return name, nil
}

// read opens the file name: what write sealed into it, or an error if the
// file was changed, swapped for another or cut short.
func (sp *spill) read(name string) ([]byte, error) {
	sealed, err := os.ReadFile(filepath.Join(sp.dir, name))
	if err != nil {
		return nil, fmt.Errorf("host: read a spilled snapshot: %w", err)
	}
	n := sp.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("host: a spilled snapshot is cut short")
	}
	data, err := sp.aead.Open(nil, sealed[:n], sealed[n:], []byte(name))
	if err != nil {
		return nil, fmt.Errorf("host: a spilled snapshot does not open: %w", err)
	}
	return data, nil
}

// remove deletes the file name of size bytes, giving them back to the
// budget.
func (sp *spill) remove(name string, size int64) {
	if os.Remove(filepath.Join(sp.dir, name)) == nil {
		sp.used.Add(-size)
	}
}

// close removes the folder and every file in it.
func (sp *spill) close() {
	if sp != nil {
		_ = os.RemoveAll(sp.dir)
	}
}
