package search

import "unsafe"

// prefetch asks the CPU to start loading the cache line at addr and returns
// at once (PREFETCHT0, which cannot fault).
//
//go:noescape
func prefetch(addr unsafe.Pointer)
