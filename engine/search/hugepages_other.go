//go:build !linux

package search

// adviseHugePages does nothing outside Linux.
func adviseHugePages([]ttBucket) {}
