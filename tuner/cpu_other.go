//go:build !unix

package tuner

import "time"

// cpuTime is unknown here; speed figures then show wall time only.
func cpuTime() time.Duration { return 0 }
