package host

import (
	"testing"

	"github.com/fount-dev/fount/abi"
)

// TestZoneOffsets: the tz import answers a zone's offsets and
// abbreviations at instants from the embedded database, and refuses
// what is not a zone, the machine's own Local among them.
func TestZoneOffsets(t *testing.T) {
	t.Parallel()
	const winter, summer = 1705296600000, 1721021400000 // 2024-01-15 and 2024-07-15, 05:30 UTC
	cases := []struct {
		zone    string
		want    []int
		abbrevs []string
		err     bool
	}{
		{"America/New_York", []int{-300, -240}, []string{"EST", "EDT"}, false},
		{"Asia/Kolkata", []int{330, 330}, []string{"IST", "IST"}, false},
		{"Europe/Paris", []int{60, 120}, []string{"CET", "CEST"}, false},
		{"Nowhere/Land", nil, nil, true},
		{"Local", nil, nil, true},
		{"localtime", nil, nil, true},
	}
	for _, c := range cases {
		t.Run(c.zone, func(t *testing.T) {
			r := zoneOffsets(abi.TZRequest{Zone: c.zone, Times: []float64{winter, summer}})
			if c.err {
				if r.Error == "" {
					t.Errorf("answered %+v, want an error", r)
				}
				return
			}
			if r.Error != "" || r.Zone != c.zone || len(r.Offsets) != 2 || r.Offsets[0] != c.want[0] || r.Offsets[1] != c.want[1] ||
				r.Abbreviations[0] != c.abbrevs[0] || r.Abbreviations[1] != c.abbrevs[1] {
				t.Errorf("answered %+v, want offsets %v and %v", r, c.want, c.abbrevs)
			}
		})
	}
}
