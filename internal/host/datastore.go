package host

import (
	"context"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
)

// hostStore performs one operation on a data store prop's store: the
// engine's capability decides which store the prop names and whether the
// invocation may reach it.
func hostStore(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	if inv.caps.Stores == nil {
		return abi.ErrDenied
	}
	req, code := guestMessage(mod, stack, abi.DecodeStoreRequest)
	if code != 0 {
		return code
	}
	reply, err := inv.caps.Stores.Do(ctx, req)
	if err != nil {
		return abi.ErrFailed
	}
	return inv.replyJSON(reply)
}
