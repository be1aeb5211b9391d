// Package abi is the single source of truth for the contract between the
// fount host and the sandboxed guest: the import module and function names,
// the wire encoding of every message that crosses the boundary, the error
// codes host functions return, and the size limits they enforce.
//
// It imports only the standard library so that a security reviewer can read
// the whole contract without chasing dependencies. ABI.md beside this file
// explains each import in prose; the C header the guest compiles against is
// generated from this package (see CHeader) and a test keeps them in step.
package abi
