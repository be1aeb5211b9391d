package bolt

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bbolt "go.etcd.io/bbolt"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// migrations[v] upgrades a file of schema version v to v+1, inside the
// transaction that opens it. Each is idempotent.
var migrations = map[uint64]func(tx *bbolt.Tx) error{
	1: migrateSourcesToTypedProps,
	2: migrateDueIndexByListener,
	3: indexComponents,
	4: settleWorkflowDeliveries,
	5: countEventsLater,
	6: indexPausedURLsLater,
	7: movePausedLater,
}

// movePausedLater moves a version 7 file to version 8, which keeps
// paused executions in a table of their own rather than as events on
// their workflow's $in (store/paused.go). The store's rules move them
// once the file is open, in batches (store.movePaused), so nothing is
// done here: the version exists so that older code, which would look
// for them on $in, refuses the file.
func movePausedLater(*bbolt.Tx) error { return nil }

// indexPausedURLsLater moves a version 6 file to version 7, which keeps
// an index of paused executions by their URLs (store/paused.go). The
// engine indexes each workflow from before it once, lazily, so nothing is
// done here: the version exists so that older code, which would pause
// executions without indexing them, refuses the file.
func indexPausedURLsLater(*bbolt.Tx) error { return nil }

// countEventsLater moves a version 5 file to version 6, which keeps a
// count of each channel's events beside it for trimming (events.go). A
// channel without a count is counted at its next append, so nothing is
// done here: the version exists so that older code, which would delete
// events without lowering the counts, refuses the file.
func countEventsLater(*bbolt.Tx) error { return nil }

// settleWorkflowDeliveries moves a version 4 file to version 5, which adds
// the buckets of workflows and executions (Open creates them). Before
// version 5 an event routed to a workflow listener (p_...) was queued as
// a delivery never due, waiting for workflows to exist. No workflow
// existed then, so no p_ listener can ever take them: each is settled
// failed, saying so, which frees the listener's backlog.
func settleWorkflowDeliveries(tx *bbolt.Tx) error {
	keys, _ := scanPrefix(tx.Bucket(bucketDeliveryDue), nil)
	for _, k := range keys {
		listener, _, seq, err := splitDueKey(k)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(listener, string(ids.Workflow)) {
			continue
		}
		d, err := getDelivery(tx, seq)
		if err != nil {
			return err
		}
		if err := removeDelivery(tx, seq, d); err != nil {
			return err
		}
		d.Status = model.DeliveryFailed
		d.Attempts = append(d.Attempts, model.Attempt{AtMs: d.CreatedAtMs, Error: "no workflow has this id: the event was routed before workflows existed"})
		if err := putDelivery(tx, seq, d); err != nil {
			return err
		}
	}
	return nil
}

// migrateSourcesToTypedProps moves version 1 sources to version 2:
//
//   - An HTTP-interface prop's value {"endpoint_url": "<public>/h/<token>"}
//     becomes Endpoints[prop] = token, so that the URL follows the
//     server's current --public-url.
//   - A prop declared secret whose value is sealed is named in
//     SecretProps. Version 1 recognised sealed values by their shape, which
//     an ordinary object prop could imitate; from version 2 only props the
//     component declares secret are ever opened.
//
// A source whose component is missing keeps its values as they are.
func migrateSourcesToTypedProps(tx *bbolt.Tx) error {
	sources, comps := tx.Bucket(bucketSources), tx.Bucket(bucketComponents)
	keys, values := scanPrefix(sources, nil)
	for i, k := range keys {
		var s model.Source
		if err := json.Unmarshal(values[i], &s); err != nil {
			return fmt.Errorf("migrate source %s: %w", k, err)
		}
		var c model.Component
		if err := getJSON(comps, s.ComponentID, &c); err != nil {
			continue
		}
		for _, p := range c.Metadata.ConfigurableProps {
			raw, ok := s.ConfiguredProps[p.Name]
			switch {
			case !ok:
			case p.Type == component.TypeHTTP:
				var v struct {
					EndpointURL string `json:"endpoint_url"`
				}
				if json.Unmarshal(raw, &v) == nil {
					if tok, ok := component.TokenFromURL(v.EndpointURL); ok {
						if s.Endpoints == nil {
							s.Endpoints = map[string]component.EndpointToken{}
						}
						s.Endpoints[p.Name] = tok
					}
				}
				delete(s.ConfiguredProps, p.Name)
			case p.Secret && secret.IsSealed(raw):
				s.SecretProps = append(s.SecretProps, p.Name)
			}
		}
		if err := putJSON(sources, string(k), s); err != nil {
			return fmt.Errorf("migrate source %s: %w", k, err)
		}
	}
	return nil
}

// bucketDeliveryDueV2 is version 2's due index, 8-byte next attempt
// ms+8-byte seq -> delivery id, which version 3 replaced.
var bucketDeliveryDueV2 = []byte("delivery_due")

// migrateDueIndexByListener moves version 2 files to version 3. Version 2
// kept pending deliveries due in one index ordered by next attempt, so a
// poll read a listener's whole backlog before any delivery due after it;
// version 3 orders them by listener first (bucketDeliveryDue). The new
// index is rebuilt from the records, not from the old index: every
// pending delivery gets its key, and nothing else does.
func migrateDueIndexByListener(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketDeliveryDueV2, bucketDeliveryDue} { // both, so that running twice is harmless
		if tx.Bucket(name) == nil {
			continue
		}
		if err := tx.DeleteBucket(name); err != nil {
			return fmt.Errorf("drop bucket %s: %w", name, err)
		}
	}
	due, err := tx.CreateBucket(bucketDeliveryDue)
	if err != nil {
		return fmt.Errorf("create the due index: %w", err)
	}
	c := tx.Bucket(bucketDeliveries).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return fmt.Errorf("corrupt delivery key %x", k)
		}
		var d model.Delivery
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decode delivery %x: %w", k, err)
		}
		if d.Status != model.DeliveryPending {
			continue
		}
		if err := due.Put(dueKey(d, binary.BigEndian.Uint64(k)), []byte(d.ID)); err != nil {
			return fmt.Errorf("index delivery %s: %w", d.ID, err)
		}
	}
	return nil
}

// indexComponents moves version 3 files to version 4: components are
// indexed by owner, oldest first (for the limit of components), and by
// code, the newest of equal codes (so that saving unchanged code again
// finds it), and the component each source runs is recorded (so that the
// limit never drops it). Components already indexed are left as they
// are.
func indexComponents(tx *bbolt.Tx) error {
	err := tx.Bucket(bucketSources).ForEach(func(k, v []byte) error {
		var s struct {
			ComponentID string `json:"component_id"`
		}
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("migrate source %s: %w", k, err)
		}
		if s.ComponentID == "" {
			return nil
		}
		return boltKV{tx: tx}.AddMember(kv.ComponentUses, s.ComponentID, string(k))
	})
	if err != nil {
		return err
	}
	type entry struct { // a component without its code, which may be megabytes
		ID           string `json:"-"`
		OwnerID      string `json:"owner_id"`
		CodeHash     string `json:"code_hash"`
		ComponentURL string `json:"component_url"`
		CreatedAt    int64  `json:"created_at"`
	}
	var all []entry
	err = tx.Bucket(bucketComponents).ForEach(func(k, v []byte) error {
		var e entry
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("migrate component %s: %w", k, err)
		}
		e.ID = string(k)
		all = append(all, e)
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID)) })
	for _, e := range all {
		if _, done := (boltList{kv.ComponentList}).seq(tx, e.ID); done {
			continue
		}
		if _, err := (boltList{kv.ComponentList}).add(tx, e.OwnerID, e.ID); err != nil {
			return err
		}
		if e.CodeHash == "" {
			continue
		}
		if err := tx.Bucket(bucketComponentCode).Put(kv.Key(e.OwnerID, e.CodeHash, e.ComponentURL), []byte(e.ID)); err != nil {
			return fmt.Errorf("migrate component %s: %w", e.ID, err)
		}
	}
	return nil
}
