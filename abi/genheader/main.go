// Command genheader writes the guest's C header for the fount ABI to
// standard output. `make guest` runs it into guest/src/fount_abi.h.
package main

import (
	"fmt"

	"github.com/fount-dev/fount/abi"
)

func main() {
	fmt.Print(abi.CHeader())
}
