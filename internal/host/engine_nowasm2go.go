//go:build !wasm2go

package host

import (
	"context"
	"errors"
	"sync/atomic"
)

// wasm2goBuilt: this build has no package guestgo (see engine_wasm2go.go).
const wasm2goBuilt = false

func wasm2goInstances(int64, int32, *atomic.Bool) (func(context.Context) (*instance, error), error) {
	return nil, errors.New("host: built without the wasm2go engine")
}

func wasm2goFromImage([]byte, int64, int32, *atomic.Bool) (func(context.Context) (*instance, error), func()) {
	return nil, nil
}
