package jetstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// A record may be larger than a NATS message: a component's code, bundle
// and source maps (a bundled vendor SDK with its map passes the 8 MiB a
// message may hold), or a workflow whose steps carry such bundles (the
// tables marked large). Such a record is stored in parts, records of their own (<table>_part.<id>.<i>:
// comp_part for components), written in the same transaction as a small
// record in its place that names them. Rewriting or deleting the record
// deletes the parts it no longer needs.

// jsParts is the record in place of one stored in parts.
type jsParts struct {
	Parts  int    `json:"fount_parts"` // first: partsPrefix tells it at a glance
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

var partsPrefix = []byte(`{"fount_parts":`)

// partSize is the most bytes a part holds: the servers' max_payload, less
// room for the subject and headers.
func (s *Engine) partSize() int {
	return max(int(s.nc.MaxPayload())-64<<10, 1<<20)
}

// partKey is the subject of part i of record id of table.
func (s *Engine) partKey(table, id string, i int) string {
	return s.key(table+"_part", id, strconv.Itoa(i))
}

// putWhole writes data as record id of table, in parts when it is too
// large for one message.
func (tx *jsTx) putWhole(table, id string, data []byte) error {
	s := tx.s
	old, err := tx.partsOf(table, id)
	if err != nil {
		return err
	}
	size := s.partSize()
	manifest := jsParts{Size: len(data)}
	if len(data) > size {
		sum := sha256.Sum256(data)
		manifest.SHA256 = hex.EncodeToString(sum[:])
		for at := 0; at < len(data); at += size {
			tx.put(s.partKey(table, id, manifest.Parts), data[at:min(at+size, len(data))])
			manifest.Parts++
		}
		if data, err = json.Marshal(manifest); err != nil {
			return err
		}
	}
	for i := manifest.Parts; i < old; i++ {
		tx.del(s.partKey(table, id, i))
	}
	tx.put(s.key(table, id), data)
	return nil
}

// getWhole reads record id of table, joined from its parts when it has
// them. The bytes are the caller's: a record of one message is copied
// out of the transaction's cache, a joined one is new already.
func (tx *jsTx) getWhole(table, id string) ([]byte, bool, error) {
	data, p, found, err := tx.recordOrParts(table, id)
	if err != nil || p == nil {
		return kv.Clone(data), found, err
	}
	if data, err = tx.joinParts(table, id, *p); err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// delWhole deletes record id of table and its parts, if it has any.
func (tx *jsTx) delWhole(table, id string) error {
	parts, err := tx.partsOf(table, id)
	if err != nil {
		return err
	}
	for i := range parts {
		tx.del(tx.s.partKey(table, id, i))
	}
	tx.del(tx.s.key(table, id))
	return nil
}

// partsOf returns how many parts record id of table is stored in: 0
// when it is one message, or absent.
func (tx *jsTx) partsOf(table, id string) (int, error) {
	_, p, _, err := tx.recordOrParts(table, id)
	if err != nil || p == nil {
		return 0, err
	}
	return p.Parts, nil
}

// recordOrParts reads record id of table: the record, or the names of
// its parts; found is false when there is neither.
func (tx *jsTx) recordOrParts(table, id string) (data []byte, p *jsParts, found bool, err error) {
	data, found, err = tx.get(tx.s.key(table, id))
	if err != nil || !found || !bytes.HasPrefix(data, partsPrefix) {
		return data, nil, found, err
	}
	p = &jsParts{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, nil, true, fmt.Errorf("decode the parts of %s %s: %w", table, id, err)
	}
	return nil, p, true, nil
}

// joinParts reads the parts p names and checks what they make.
func (tx *jsTx) joinParts(table, id string, p jsParts) ([]byte, error) {
	out := make([]byte, 0, p.Size)
	for i := range p.Parts {
		part, ok, err := tx.get(tx.s.partKey(table, id, i))
		if err != nil || !ok {
			return nil, fmt.Errorf("%s %s, part %d of %d: %w", table, id, i, p.Parts, errors.Join(err, kv.NotFound(ok)))
		}
		out = append(out, part...)
	}
	if sum := sha256.Sum256(out); len(out) != p.Size || hex.EncodeToString(sum[:]) != p.SHA256 {
		return nil, fmt.Errorf("%s %s: its %d parts make %d bytes that are not the %d written", table, id, p.Parts, len(out), p.Size)
	}
	return out, nil
}
