//go:build !unix

package cputime

import "time"

// Used returns 0: this system's CPU time is not read here, so speed
// figures then show wall time only.
func Used() time.Duration { return 0 }
