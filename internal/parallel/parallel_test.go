package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every index below n is worked on exactly once, and Each returns only
// after every call has.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		calls := make([]atomic.Int32, n)
		var finished atomic.Int32
		Each(n, func(i int) {
			time.Sleep(time.Duration(i%3) * time.Microsecond)
			calls[i].Add(1)
			finished.Add(1)
		})
		if int(finished.Load()) != n {
			t.Errorf("n=%d: Each returned after %d calls", n, finished.Load())
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d: index %d worked on %d times", n, i, c)
			}
		}
	}
}

// No more than GOMAXPROCS calls run at once, and on two or more cores
// more than one does.
func TestEachIsBoundedByTheCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	var mu sync.Mutex
	running, most := 0, 0
	Each(60, func(int) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
	})
	if most > 3 || most < 2 {
		t.Errorf("at most %d calls ran at once, want 2 or 3 on GOMAXPROCS 3", most)
	}
}

// On one core the indices are worked on in order, on this goroutine.
func TestEachOnOneCoreIsInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var got []int
	Each(5, func(i int) { got = append(got, i) })
	for i, v := range got {
		if v != i {
			t.Fatalf("order %v, want 0..4", got)
		}
	}
}
