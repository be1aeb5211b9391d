package host

import (
	"context"
	"strings"
	"time"
	// The zone database goes with the binary: a host without one
	// (a slim container) answers as any other.
	_ "time/tzdata"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
)

// hostTZ is FuncTZ: a zone's offsets from UTC at the guest's instants,
// for its Intl (guest/intl.js).
func hostTZ(_ context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	req, code := guestMessage(mod, stack, abi.DecodeTZRequest)
	if code != 0 {
		return code
	}
	return inv.replyJSON(zoneOffsets(req))
}

// zoneOffsets answers a TZRequest from Go's zone database.
func zoneOffsets(req abi.TZRequest) abi.TZReply {
	// Go's "Local" and the database's "localtime" would be the host's
	// own zone, which a component has no business knowing.
	if strings.EqualFold(req.Zone, "Local") || strings.EqualFold(req.Zone, "localtime") {
		return abi.TZReply{Error: "unknown time zone " + req.Zone}
	}
	loc, err := time.LoadLocation(req.Zone)
	if err != nil {
		return abi.TZReply{Error: "unknown time zone " + req.Zone}
	}
	reply := abi.TZReply{Zone: loc.String(), Offsets: make([]int, len(req.Times)), Abbreviations: make([]string, len(req.Times))}
	for i, ms := range req.Times {
		name, offset := time.UnixMilli(int64(ms)).In(loc).Zone()
		reply.Offsets[i], reply.Abbreviations[i] = offset/60, name
	}
	return reply
}
