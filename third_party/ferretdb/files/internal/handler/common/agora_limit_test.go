// Tests of patch 0012: the limit iterator closes its source when it hands over the last document
// allowed, before the caller uses it.

package common

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// agoraSource yields n documents {_id: i} and counts its Close calls.
type agoraSource struct {
	next   int
	n      int
	closed atomic.Int32
}

func (s *agoraSource) Next() (struct{}, *types.Document, error) {
	if s.closed.Load() > 0 || s.next >= s.n {
		return struct{}{}, nil, iterator.ErrIteratorDone
	}

	s.next++

	return struct{}{}, must.NotFail(types.NewDocument("_id", int32(s.next))), nil
}

func (s *agoraSource) Close() {
	s.closed.Add(1)
}

func TestAgoraLimitClosesSourceAtLimit(t *testing.T) {
	t.Parallel()

	for _, limit := range []int64{1, 2, 3} {
		src := &agoraSource{n: 5}
		closer := iterator.NewMultiCloser()
		iter := LimitIterator(src, closer, limit)

		for i := int64(1); i <= limit; i++ {
			_, doc, err := iter.Next()
			require.NoError(t, err)
			assert.Equal(t, int32(i), must.NotFail(doc.Get("_id")), "limit %d", limit)

			// Open until the last document allowed is handed over, closed with it.
			if i < limit {
				assert.Zero(t, src.closed.Load(), "limit %d, document %d", limit, i)
			} else {
				assert.Equal(t, int32(1), src.closed.Load(), "limit %d, document %d", limit, i)
			}
		}

		_, _, err := iter.Next()
		assert.ErrorIs(t, err, iterator.ErrIteratorDone)

		// Closing again (the command's closer) is allowed.
		closer.Close()
		assert.Equal(t, 5-int(limit), src.n-src.next)
	}
}

// A source shorter than the limit ends as before and is closed by the closer.
func TestAgoraLimitShortSource(t *testing.T) {
	t.Parallel()

	src := &agoraSource{n: 1}
	closer := iterator.NewMultiCloser()
	iter := LimitIterator(src, closer, 3)

	_, doc, err := iter.Next()
	require.NoError(t, err)
	assert.Equal(t, int32(1), must.NotFail(doc.Get("_id")))
	assert.Zero(t, src.closed.Load())

	_, _, err = iter.Next()
	assert.ErrorIs(t, err, iterator.ErrIteratorDone)

	closer.Close()
	assert.Positive(t, src.closed.Load())
}
