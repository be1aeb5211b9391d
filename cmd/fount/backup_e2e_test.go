package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/server"
)

// TestBackupUnderLoadRestores: a backup taken while runs go on restores
// into a new data dir; a server started on it has every source, every
// event that was stored before the backup began (and none that the
// original lacks), and opens secret props with the restored key. Only the
// owner may take one, and a restore refuses a data dir in use.
//
// Events are compared by what they carry, not by id: a run that was
// queued but not yet run when the backup was taken runs on both servers,
// and each gives its event an id of its own.
func TestBackupUnderLoadRestores(t *testing.T) {
	// On bbolt whatever FOUNT_TEST_STORE says: fount backs up bbolt only.
	e := newCLIEnvOn(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true, StoreURL: "bolt"})
	s := e.srv
	counter := s.deploySource(`export default { name: "counter", version: "1", run(ev) { this.$emit({ n: ev.n }) } }`, nil)
	secretive := s.deploySource(`export default { name: "secretive", version: "1", props: { token: { type: "string", secret: true } },
		run() { this.$emit({ token: this.token }) } }`, map[string]any{"token": "s3cret"})
	id := counter["id"].(string)
	e.mustFount("data-stores", "create", "kept")
	e.mustFount("data-stores", "set", "kept", "greeting", `{"hello":"world"}`)
	for i := range 20 {
		s.run(id, map[string]any{"n": i})
	}
	s.events(id, "", 20)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	loaded := 0
	wg.Add(1)
	go func() { // load while the backup is taken: at most 50 runs, so that no channel passes the 100 events it keeps
		defer wg.Done()
		for i := 100; i < 150; i++ {
			select {
			case <-stop:
				return
			default:
				s.run(id, map[string]any{"n": i})
				loaded++
			}
		}
	}()
	file := filepath.Join(t.TempDir(), "backup.tar")
	code, out, stderr := e.fount("backup", file)
	close(stop)
	wg.Wait()
	if code != exitOK || !strings.Contains(out, "wrote "+file) || !strings.Contains(stderr, "holds secret.key") {
		t.Fatalf("backup: exit %d\n%s\n%s", code, out, stderr)
	}

	restored := t.TempDir()
	var rout, rerr lockedBuffer
	if code := run(context.Background(), []string{"restore", file, "--data-dir", restored}, testEnvironment(nil, &rout, &rerr)); code != exitOK {
		t.Fatalf("restore: exit %d: %s", code, rerr.String())
	}
	if code := run(context.Background(), []string{"restore", file, "--data-dir", restored}, testEnvironment(nil, &rout, &rerr)); code == exitOK || !strings.Contains(rerr.String(), "not empty") {
		t.Errorf("a restore into a used data dir: exit %d, %s", code, rerr.String())
	}
	r := startServer(t, server.Config{DataDir: restored, StoreURL: "bolt"})
	r.key = s.key

	original := eventNs(t, s.events(id, "", 20+loaded))
	got := eventNs(t, r.events(id, "", 20))
	for i := range 20 {
		if got[fmt.Sprint(i)] != 1 {
			t.Errorf("the restored source has %d events of run %d, stored before the backup", got[fmt.Sprint(i)], i)
		}
	}
	for n, count := range got {
		if count > 1 || original[n] == 0 {
			t.Errorf("the restored source has %d events of run %v, the original %d", count, n, original[n])
		}
	}
	if st, body := r.do("GET", "/v1/users/me/data_stores", nil); st != 200 || !strings.Contains(jsonOf(body), `"name":"kept"`) {
		t.Errorf("the restored server's data stores: %d %v", st, body)
	} else {
		dsID := body["data"].([]any)[0].(map[string]any)["id"].(string)
		if st, rec := r.do("GET", "/v1/data_stores/"+dsID+"/records/greeting", nil); st != 200 || jsonOf(data(rec)["value"]) != `{"hello":"world"}` {
			t.Errorf("the restored data store's key: %d %v", st, rec)
		}
	}
	r.run(secretive["id"].(string), nil)
	if ev := r.events(secretive["id"].(string), "", 1)[0]["event"].(map[string]any); ev["token"] != "s3cret" {
		t.Errorf("the restored server opens the secret as %v", ev)
	}

	bob := s.newUser("bob", "")
	if st, body := bob.do("GET", "/v1/backup", nil); st != 403 {
		t.Errorf("a backup by a user who is not the owner: %d %v", st, body)
	}
}

// eventNs counts the events of each run, by the n that the counter emits.
func eventNs(t *testing.T, events []map[string]any) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, ev := range events {
		body, ok := ev["event"].(map[string]any)
		if !ok {
			t.Fatalf("an event without a body: %v", ev)
		}
		out[fmt.Sprint(body["n"])]++
	}
	return out
}
