package kv

import "encoding/binary"

// Encodings of keys both engines use: bbolt as its keys, JetStream
// inside records (a code index's keys, the order of listeners, an
// event's place by id).

// Clone copies a slice read from a transaction so that it may outlive
// it, or survive changes made in it.
func Clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// Key encodes parts as length-prefixed strings. The encoding is
// prefix-free, so Key(a) is a prefix of Key(a, b...) and of nothing else
// that starts with another first part.
func Key(parts ...string) []byte {
	var k []byte
	for _, p := range parts {
		k = binary.AppendUvarint(k, uint64(len(p)))
		k = append(k, p...)
	}
	return k
}

// BE8 is v as 8 big-endian bytes.
func BE8(v uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, v)
}
