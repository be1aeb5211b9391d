package bolt

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	bbolt "go.etcd.io/bbolt"
)

// TestMigrateSchema2: a version 2 file, with its due index keyed by next
// attempt alone, opens with the per-listener due index rebuilt from the
// records: every pending delivery is due again, in per-listener order,
// and nothing else is, whatever the old index held. bbolt only: the
// schema versions are its file's.
func TestMigrateSchema2(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "fount.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	v2 := []model.Delivery{ // ids 1..6, as version 2 stored them
		{ListenerID: "wh_a", Status: model.DeliveryPending, NextAttemptMs: 300},
		{ListenerID: "wh_a", Status: model.DeliveryPending, NextAttemptMs: 100, Attempts: []model.Attempt{{AtMs: 50, Status: 500}}},
		{ListenerID: "wh_b", Status: model.DeliveryPending, NextAttemptMs: 200},
		{ListenerID: "wh_b", Status: model.DeliveryDelivered, NextAttemptMs: 10},
		{ListenerID: "wh_c", Status: model.DeliveryFailed, NextAttemptMs: 10},
		{ListenerID: "p_w", Status: model.DeliveryPending, NextAttemptMs: math.MaxInt64},
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keySchemaVersion, []byte("2")); err != nil {
			return err
		}
		recs, _ := tx.CreateBucket(bucketDeliveries)
		order, _ := tx.CreateBucket(bucketDeliveryOrder)
		oldDue, err := tx.CreateBucket(bucketDeliveryDueV2)
		if err != nil {
			return err
		}
		for i, d := range v2 {
			seq := uint64(i + 1)
			d.ID, d.Attempts = kv.SeqID(seq), append([]model.Attempt{}, d.Attempts...)
			data, _ := json.Marshal(d)
			if err := recs.Put(kv.BE8(seq), data); err != nil {
				return err
			}
			if err := order.Put(orderKey(d.ListenerID, seq), []byte(d.ID)); err != nil {
				return err
			}
			// The old index: next attempt ms + seq. It also holds a stale
			// entry for the delivered 4, which the rebuild must not copy.
			if d.Status == model.DeliveryPending || seq == 4 {
				if err := oldDue.Put(binary.BigEndian.AppendUint64(kv.BE8(uint64(d.NextAttemptMs)), seq), []byte(d.ID)); err != nil {
					return err
				}
			}
		}
		return recs.SetSequence(uint64(len(v2)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	check := func(t *testing.T, b *Engine) {
		t.Helper()
		if got := deliveryIDs(must(Inspect(b).DueIndex(ctx, math.MaxInt64))); !slices.Equal(got, []string{"2", "1", "3"}) {
			t.Errorf("due index = %v, want [2 1 3] (wh_a by due, then wh_b; p_w settled by version 5)", got)
		}
		if got := deliveryIDs(must(b.DueDeliveries(ctx, 1000, "", 0, nil))); !slices.Equal(got, []string{"2", "3"}) {
			t.Errorf("DueDeliveries = %v, want [2 3]", got)
		}
		err := Inspect(b).File().View(func(tx *bbolt.Tx) error {
			if tx.Bucket(bucketDeliveryDueV2) != nil {
				return fmt.Errorf("the version 2 due index is still there")
			}
			if v := string(tx.Bucket(bucketMeta).Get(keySchemaVersion)); v != fmt.Sprint(schemaVersion) {
				return fmt.Errorf("schema version %q after the upgrade", v)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}
	b, err := Open(path, time.Now, nil)
	if err != nil {
		t.Fatalf("Open of a version 2 file: %v", err)
	}
	check(t, b)
	// The migrated records are whole: attempts kept, and updates move
	// their new index entries.
	got := must(b.ListDeliveries(ctx, "wh_a", kv.Page{}))
	if len(got.Items) != 2 || len(got.Items[0].Attempts) != 1 || got.Items[0].Attempts[0].Status != 500 {
		t.Fatalf("wh_a's deliveries after the upgrade = %+v", got.Items)
	}
	// The workflow listener's delivery, never due before version 5, is
	// settled: no workflow can ever take it.
	pw := must(b.ListDeliveries(ctx, "p_w", kv.Page{}))
	if len(pw.Items) != 1 || pw.Items[0].Status != model.DeliveryFailed || len(pw.Items[0].Attempts) != 1 || !strings.Contains(pw.Items[0].Attempts[0].Error, "no workflow") {
		t.Errorf("p_w's delivery after the upgrade = %+v", pw.Items)
	}
	d := got.Items[0]
	d.Status = model.DeliveryDelivered
	err = b.Update(ctx, func(tx kv.Tx) error { _, err := tx.UpdateDelivery(d); return err })
	wantErr(t, "UpdateDelivery", err, nil)
	if got := deliveryIDs(must(Inspect(b).DueIndex(ctx, math.MaxInt64))); !slices.Equal(got, []string{"1", "3"}) {
		t.Errorf("due index after delivering 2 = %v, want [1 3]", got)
	}
	// Running the migration again changes nothing.
	wantErr(t, "migrate again", Inspect(b).File().Update(migrateDueIndexByListener), nil)
	if got := deliveryIDs(must(Inspect(b).DueIndex(ctx, math.MaxInt64))); !slices.Equal(got, []string{"1", "3"}) {
		t.Errorf("due index after a second migration = %v, want [1 3]", got)
	}
	checkFile(t, b)
	wantErr(t, "Close", b.Close(), nil)

	// Reopened, a version 3 file is as it was.
	b, err = Open(path, time.Now, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer b.Close()
	defer checkFile(t, b)
	if got := deliveryIDs(must(Inspect(b).DueIndex(ctx, math.MaxInt64))); !slices.Equal(got, []string{"1", "3"}) {
		t.Errorf("due index after reopening = %v, want [1 3]", got)
	}
}
