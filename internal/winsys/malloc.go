package winsys

/*
#include <malloc.h>
*/
import "C"

import "sync"

var keepMallocOnce sync.Once

// keepMallocMemory (called as either window system opens, before the GL
// starts) stops the C allocator from handing freed memory back
// to the kernel between frames. A software GL (llvmpipe) allocates and
// frees its scene's bins, tens of megabytes, every frame on its own
// threads; with glibc's defaults a free at the top of a thread's arena is
// returned (madvise) and the next frame faults every page in again, which
// cost a 1080p sort-last source a sixth of its frame time (1.4 million
// page faults against 0.4 million in 40 frames of four sources). The
// render processes keep their peak instead. Setting the thresholds also
// fixes the mmap threshold, so blocks up to 32 MiB come from the arenas.
//
// The trim threshold does not cover a thread arena's heaps (64 MiB each):
// one left empty is unmapped whole unless the heap below it has top_pad
// bytes to spare, and the binner's 64 KiB blocks then mapped it again,
// page by page, every frame. A pipe drawing into two windows (two scenes
// a frame) spent 40% of its time in the kernel, and a two-window DB
// config ran at 1.8 frames a second where 8 is its pace
// (TestDrawsIntoTwoWindowsKeepTheirMemory).
func keepMallocMemory() {
	keepMallocOnce.Do(func() {
		C.mallopt(C.M_TRIM_THRESHOLD, 1<<30)
		C.mallopt(C.M_MMAP_THRESHOLD, 32<<20)
		C.mallopt(C.M_TOP_PAD, 64<<20)
	})
}
