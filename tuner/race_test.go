//go:build race

package tuner

// raceEnabled is set when the race detector is on; tests then do less work.
const raceEnabled = true
