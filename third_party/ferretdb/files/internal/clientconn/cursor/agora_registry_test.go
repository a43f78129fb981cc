// The registry closes cursors on their context's cancellation without a goroutine per cursor
// (patch 0013): cursors removed before their context ends are no longer watched, and the
// registry's Close still waits for every cursor.

package cursor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func agoraDocs() []*types.Document {
	return []*types.Document{must.NotFail(types.NewDocument("v", int32(1)))}
}

func TestAgoraCursorsWithoutGoroutines(t *testing.T) {
	r := NewRegistry(testutil.Logger(t))
	ctx, cancel := context.WithCancel(testutil.Ctx(t))

	// many cursors closed on a context that lives on: each is removed, its watch on ctx stopped
	for i := 0; i < 1000; i++ {
		c := r.NewCursor(ctx, iterator.Values(iterator.ForSlice(agoraDocs())), &NewParams{Type: Normal})
		_, err := iterator.ConsumeValues(c)
		require.NoError(t, err)
		c.Close()
		require.Nil(t, r.Get(c.ID))
	}

	// one removed by its context
	open := r.NewCursor(ctx, iterator.Values(iterator.ForSlice(agoraDocs())), &NewParams{Type: Normal})
	tailable := r.NewCursor(ctx, iterator.Values(iterator.ForSlice(agoraDocs())), &NewParams{Type: Tailable})
	killed := r.NewCursor(ctx, iterator.Values(iterator.ForSlice(agoraDocs())), &NewParams{Type: Tailable})
	r.CloseAndRemove(killed)
	r.CloseAndRemove(killed) // again: nothing more
	assert.Nil(t, r.Get(killed.ID))
	assert.Len(t, r.All(), 2)

	cancel()

	done := make(chan struct{})
	go func() {
		r.Close()
		close(done)
	}()

	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Registry.Close did not return")
	}

	assert.Nil(t, r.Get(open.ID))
	assert.Nil(t, r.Get(tailable.ID))
	assert.Empty(t, r.All())

	_, _, err := open.Next()
	assert.ErrorIs(t, err, iterator.ErrIteratorDone)
}

func TestAgoraCursorOnCanceledContext(t *testing.T) {
	r := NewRegistry(testutil.Logger(t))

	ctx, cancel := context.WithCancel(testutil.Ctx(t))
	cancel()

	c := r.NewCursor(ctx, iterator.Values(iterator.ForSlice(agoraDocs())), &NewParams{Type: Tailable})

	require.Eventually(t, func() bool { return r.Get(c.ID) == nil }, 10*time.Second, time.Millisecond)
	r.Close()
}
