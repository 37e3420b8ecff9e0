package search

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back the table with transparent huge pages
// (where the system leaves that to madvise): a probe anywhere in a large
// table then rarely misses the TLB as well as the cache. Failure is harmless.
func adviseHugePages(buckets []ttBucket) {
	if len(buckets) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buckets[0])), len(buckets)*int(unsafe.Sizeof(buckets[0])))
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
