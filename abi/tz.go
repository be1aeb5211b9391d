package abi

import (
	"fmt"
	"math"
	"regexp"
)

// TZRequest is what the guest passes to FuncTZ: a time zone by its IANA
// name, and the instants (milliseconds since the epoch) whose offsets it
// wants; none asks only whether the zone exists.
type TZRequest struct {
	Zone  string    `json:"zone"`
	Times []float64 `json:"times"`
}

// MaxTZTimes bounds the instants of one TZRequest.
const MaxTZTimes = 256

// maxTZTime is ECMAScript's last representable instant.
const maxTZTime = 8.64e15

// tzName is what an IANA zone name is made of.
var tzName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$`)

// TZReply is the host's answer: the zone's canonical name, and for each
// instant its offset from UTC in minutes and the zone's abbreviation
// then; or why the zone is unknown.
type TZReply struct {
	Zone          string   `json:"zone,omitempty"`
	Offsets       []int    `json:"offsets,omitempty"`
	Abbreviations []string `json:"abbreviations,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// DecodeTZRequest decodes and validates a TZRequest.
func DecodeTZRequest(b []byte) (TZRequest, error) {
	var r TZRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if len(r.Zone) > 64 || !tzName.MatchString(r.Zone) {
		return r, fmt.Errorf("%w: %q is not a time zone name", ErrDecode, r.Zone)
	}
	if len(r.Times) > MaxTZTimes {
		return r, fmt.Errorf("%w: %d instants (at most %d)", ErrDecode, len(r.Times), MaxTZTimes)
	}
	for _, t := range r.Times {
		if math.IsNaN(t) || math.Abs(t) > maxTZTime {
			return r, fmt.Errorf("%w: instant %v is not a time", ErrDecode, t)
		}
	}
	return r, nil
}
