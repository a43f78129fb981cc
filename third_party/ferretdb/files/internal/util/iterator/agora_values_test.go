package iterator

import (
	"errors"
	"testing"
)

// agoraCounting yields the integers 0..total-1, then ErrIteratorDone; it records whether it was closed.
type agoraCounting struct {
	next, total int
	closed      bool
}

func (c *agoraCounting) Next() (struct{}, int, error) {
	if c.next >= c.total {
		return struct{}{}, 0, ErrIteratorDone
	}

	c.next++

	return struct{}{}, c.next - 1, nil
}

func (c *agoraCounting) Close() { c.closed = true }

// TestAgoraConsumeValuesNCapacity checks that a large n no longer reserves room for n values, and
// that every value still arrives, in order, for n below, at and above the number of values.
func TestAgoraConsumeValuesNCapacity(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct{ total, n, want int }{
		{3, 100_000, 3},
		{0, 100_000, 0},
		{500, 100_000, 500},
		{500, 200, 200},
		{128, 128, 128},
		{10, 5, 5},
	} {
		iter := &agoraCounting{total: tc.total}

		res, err := ConsumeValuesN[struct{}, int](iter, tc.n)
		if err != nil {
			t.Fatal(err)
		}

		if len(res) != tc.want {
			t.Fatalf("total %d, n %d: %d values, want %d", tc.total, tc.n, len(res), tc.want)
		}

		for i, v := range res {
			if v != i {
				t.Fatalf("total %d, n %d: value %d is %d", tc.total, tc.n, i, v)
			}
		}

		if cap(res) > max(tc.want, agoraMaxInitialCap)*2 {
			t.Fatalf("total %d, n %d: capacity %d for %d values", tc.total, tc.n, cap(res), len(res))
		}

		// Done before n values: closed, as FerretDB's contract says; n values taken: left open.
		if wantClosed := tc.total < tc.n; iter.closed != wantClosed {
			t.Fatalf("total %d, n %d: closed %v, want %v", tc.total, tc.n, iter.closed, wantClosed)
		}
	}
}

// TestAgoraConsumeValuesNAllocations checks the bytes a small result of a large batch allocates.
func TestAgoraConsumeValuesNAllocations(t *testing.T) {
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()

		for range b.N {
			if _, err := ConsumeValuesN[struct{}, int](&agoraCounting{total: 3}, 100_000); err != nil &&
				!errors.Is(err, ErrIteratorDone) {
				b.Fatal(err)
			}
		}
	})

	// Before the patch: 800,000 bytes of slice per call.
	if perOp := r.AllocedBytesPerOp(); perOp > 4096 {
		t.Fatalf("%d bytes allocated per call for 3 values of a batch of 100,000", perOp)
	}
}
