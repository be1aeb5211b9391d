package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fount-dev/fount/model"
)

// A component's record holds its code, its bundle and their source maps:
// a bundle of a vendor's SDK with its map passes the 8 MiB a NATS
// message may hold. Such a record is stored in parts, records of their
// own (comp_part.<id>.<i>), written in the same transaction as a small
// record in its place that names them. Components are written once, so a
// part never changes; dropping the component deletes its parts with it.
const tblComponentParts = "comp_part" // component id, i → a part of its record

// jsParts is the record in place of one stored in parts.
type jsParts struct {
	Parts  int    `json:"fount_parts"` // first: partsPrefix tells it at a glance
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

var partsPrefix = []byte(`{"fount_parts":`)

// partSize is the most bytes a part holds: the servers' max_payload, less
// room for the subject and headers.
func (s *JetStream) partSize() int {
	return max(int(s.nc.MaxPayload())-64<<10, 1<<20)
}

// putComponent writes c's record, in parts when it is too large for one
// message.
func (s *JetStream) putComponent(tx *jsTx, c model.Component) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode component %s: %w", c.ID, err)
	}
	size := s.partSize()
	if len(data) <= size {
		tx.put(s.key(tblComponents, c.ID), data)
		return nil
	}
	sum := sha256.Sum256(data)
	manifest := jsParts{Size: len(data), SHA256: hex.EncodeToString(sum[:])}
	for at := 0; at < len(data); at += size {
		tx.put(s.key(tblComponentParts, c.ID, strconv.Itoa(manifest.Parts)), data[at:min(at+size, len(data))])
		manifest.Parts++
	}
	return tx.putJSON(s.key(tblComponents, c.ID), manifest)
}

// getComponent reads the component with id, whole, or ErrNotFound.
func (s *JetStream) getComponent(tx *jsTx, id string) (model.Component, error) {
	data, parts, err := s.componentRecord(tx, id)
	if err != nil {
		return model.Component{}, err
	}
	if parts != nil {
		if data, err = s.joinParts(tx, id, *parts); err != nil {
			return model.Component{}, err
		}
	}
	var c model.Component
	if err := json.Unmarshal(data, &c); err != nil {
		return model.Component{}, fmt.Errorf("decode component %s: %w", id, err)
	}
	return c, nil
}

// componentRecord reads the record of component id: the component, or
// the names of its parts.
func (s *JetStream) componentRecord(tx *jsTx, id string) ([]byte, *jsParts, error) {
	data, ok, err := tx.get(s.key(tblComponents, id))
	if err != nil || !ok {
		return nil, nil, errors.Join(err, notFound(ok))
	}
	if !bytes.HasPrefix(data, partsPrefix) {
		return data, nil, nil
	}
	var p jsParts
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, fmt.Errorf("decode the parts of component %s: %w", id, err)
	}
	return nil, &p, nil
}

// joinParts reads the parts p names and checks what they make.
func (s *JetStream) joinParts(tx *jsTx, id string, p jsParts) ([]byte, error) {
	out := make([]byte, 0, p.Size)
	for i := range p.Parts {
		part, ok, err := tx.get(s.key(tblComponentParts, id, strconv.Itoa(i)))
		if err != nil || !ok {
			return nil, fmt.Errorf("component %s, part %d of %d: %w", id, i, p.Parts, errors.Join(err, notFound(ok)))
		}
		out = append(out, part...)
	}
	if sum := sha256.Sum256(out); len(out) != p.Size || hex.EncodeToString(sum[:]) != p.SHA256 {
		return nil, fmt.Errorf("component %s: its %d parts make %d bytes that are not the %d written", id, p.Parts, len(out), p.Size)
	}
	return out, nil
}

// delComponent deletes component id's record and its parts, if it has
// any.
func (s *JetStream) delComponent(tx *jsTx, id string) error {
	_, parts, err := s.componentRecord(tx, id)
	if err != nil {
		return err
	}
	if parts != nil {
		for i := range parts.Parts {
			tx.del(s.key(tblComponentParts, id, strconv.Itoa(i)))
		}
	}
	tx.del(s.key(tblComponents, id))
	return nil
}
