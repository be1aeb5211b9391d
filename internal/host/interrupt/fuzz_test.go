package interrupt

import (
	"testing"
)

// FuzzInstrument: any bytes are refused or rewritten without a panic, and
// a rewritten module decodes again.
func FuzzInstrument(f *testing.F) {
	f.Add(loopModule(2))
	f.Add(header)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, module []byte) {
		out, err := Instrument(module, testPoll, 100)
		if err != nil {
			return
		}
		if _, err := Instrument(out, testPoll, 100); err != nil {
			t.Fatalf("the rewritten module does not decode: %v", err)
		}
	})
}
