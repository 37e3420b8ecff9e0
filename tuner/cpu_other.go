//go:build !unix

package main

import "time"

// cpuTime is unknown here; speed figures then show wall time only.
func cpuTime() time.Duration { return 0 }
