// Package cputime reads the CPU time a process has used, so that speed
// figures mean something on a machine shared with other work: a rate per
// CPU-second holds where a rate per wall-clock second does not.
package cputime
