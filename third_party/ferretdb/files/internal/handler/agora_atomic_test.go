// Tests of Agora's atomic single-document writes (patch 0006, agora_lock.go) and of the update
// command that held a connection per statement (patch 0005), on a real SQLite backend.

package handler

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraSetup returns a handler on a fresh SQLite backend and a collection holding docs.
func agoraSetup(t *testing.T, docs ...*types.Document) (*Handler, string, string) {
	t.Helper()

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	b, err := sqlite.NewBackend(&sqlite.NewBackendParams{
		URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp, BatchSize: 100,
	})
	require.NoError(t, err)

	h, err := New(&NewOpts{Backend: b, L: testutil.Logger(t), StateProvider: sp, BatchSize: 100})
	require.NoError(t, err)
	t.Cleanup(h.Close)

	dbName, cName := testutil.DatabaseName(t), testutil.CollectionName(t)

	if len(docs) > 0 {
		db, err := h.b.Database(dbName)
		require.NoError(t, err)
		c, err := db.Collection(cName)
		require.NoError(t, err)
		_, err = c.InsertAll(testutil.Ctx(t), &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)
	}

	return h, dbName, cName
}

func agoraDoc(pairs ...any) *types.Document {
	return must.NotFail(types.NewDocument(pairs...))
}

func agoraArr(values ...any) *types.Array {
	return must.NotFail(types.NewArray(values...))
}

// agoraUpdate runs an update command with the given statements; it returns (matched, modified).
func agoraUpdate(t *testing.T, h *Handler, dbName, cName string, statements ...*types.Document) (int32, int32) {
	updates := types.MakeArray(len(statements))
	for _, s := range statements {
		updates.Append(s)
	}

	params, err := common.GetUpdateParams(agoraDoc("update", cName, "updates", updates, "$db", dbName), h.L)
	require.NoError(t, err)

	matched, modified, _, err := h.updateDocument(testutil.Ctx(t), params)
	require.NoError(t, err)

	return matched, modified
}

func agoraFindAndModify(t *testing.T, h *Handler, dbName, cName string, pairs ...any) *findAndModifyResult {
	doc := agoraDoc(append([]any{"findAndModify", cName}, pairs...)...)
	doc.Set("$db", dbName)

	params, err := common.GetFindAndModifyParams(doc, h.L)
	require.NoError(t, err)

	res, err := h.findAndModifyDocument(testutil.Ctx(t), params)
	require.NoError(t, err)

	return res
}

func agoraAll(t *testing.T, h *Handler, dbName, cName string) []*types.Document {
	db, err := h.b.Database(dbName)
	require.NoError(t, err)
	c, err := db.Collection(cName)
	require.NoError(t, err)

	res, err := c.Query(testutil.Ctx(t), &backends.QueryParams{})
	require.NoError(t, err)

	docs, err := iterator.ConsumeValues(res.Iter)
	require.NoError(t, err)

	return docs
}

func agoraParallel(n int, f func(i int)) {
	var wg sync.WaitGroup

	start := make(chan struct{})

	for i := 0; i < n; i++ {
		wg.Add(1)

		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}

	close(start)
	wg.Wait()
}

// TestAgoraParallelInc: 50 parallel $inc of one field of one document add up to 50, and 20 parallel
// updateMany $inc reach every document 20 times.
func TestAgoraParallelInc(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1), "n", int32(0)), agoraDoc("_id", int32(2), "n", int32(0)))

	agoraParallel(50, func(int) {
		inc := agoraDoc("$inc", agoraDoc("n", int32(1)))
		agoraUpdate(t, h, dbName, cName, agoraDoc("q", agoraDoc("_id", int32(1)), "u", inc))
	})
	agoraParallel(20, func(int) {
		inc := agoraDoc("$inc", agoraDoc("n", int32(1)))
		agoraUpdate(t, h, dbName, cName, agoraDoc("q", agoraDoc(), "u", inc, "multi", true))
	})

	docs := agoraAll(t, h, dbName, cName)
	require.Len(t, docs, 2)

	for _, d := range docs {
		expected := int32(20)
		if must.NotFail(d.Get("_id")) == int32(1) {
			expected = 70
		}

		assert.Equal(t, expected, must.NotFail(d.Get("n")), "%v", d)
	}
}

// TestAgoraParallelSetDifferentFields: 20 parallel $sets of different fields of one document all stay.
func TestAgoraParallelSetDifferentFields(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1)))

	agoraParallel(20, func(i int) {
		set := agoraDoc("$set", agoraDoc(fmt.Sprintf("f%d", i), int32(i)))
		agoraUpdate(t, h, dbName, cName, agoraDoc("q", agoraDoc("_id", int32(1)), "u", set))
	})

	docs := agoraAll(t, h, dbName, cName)
	require.Len(t, docs, 1)

	for i := 0; i < 20; i++ {
		v, err := docs[0].Get(fmt.Sprintf("f%d", i))
		require.NoError(t, err, "field f%d lost", i)
		assert.Equal(t, int32(i), v)
	}
}

// TestAgoraParallelConditionalUpdates: of N parallel {_id, version: 0} -> version 1 updates, exactly one matches.
func TestAgoraParallelConditionalUpdates(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1), "version", int32(0), "winners", int32(0)))

	var mu sync.Mutex

	var won int32

	agoraParallel(30, func(int) {
		matched, _ := agoraUpdate(t, h, dbName, cName, agoraDoc(
			"q", agoraDoc("_id", int32(1), "version", int32(0)),
			"u", agoraDoc("$set", agoraDoc("version", int32(1)), "$inc", agoraDoc("winners", int32(1))),
		))

		mu.Lock()
		won += matched
		mu.Unlock()
	})

	assert.Equal(t, int32(1), won)

	docs := agoraAll(t, h, dbName, cName)
	require.Len(t, docs, 1)
	assert.Equal(t, int32(1), must.NotFail(docs[0].Get("winners")))
}

// TestAgoraFindAndModifyImages: parallel findAndModify $inc return before and after images that
// fit one sequence of writes: every value from 0 to 39 is seen exactly once as a before image.
func TestAgoraFindAndModifyImages(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1), "n", int32(0)))

	var mu sync.Mutex

	var before []int32

	agoraParallel(40, func(i int) {
		res := agoraFindAndModify(t, h, dbName, cName,
			"query", agoraDoc("_id", int32(1)), "update", agoraDoc("$inc", agoraDoc("n", int32(1))), "new", i%2 == 0)
		n := must.NotFail(res.value.(*types.Document).Get("n")).(int32)

		if i%2 == 0 {
			n-- // an after image
		}

		mu.Lock()
		before = append(before, n)
		mu.Unlock()
	})

	slices.Sort(before)

	expected := make([]int32, 40)
	for i := range expected {
		expected[i] = int32(i)
	}

	assert.Equal(t, expected, before)
}

// TestAgoraDeleteWhileUpdating: a delete of the documents below a threshold, run while they are
// being raised above it, deletes only documents that match when it deletes them.
func TestAgoraDeleteWhileUpdating(t *testing.T) {
	t.Parallel()

	var docs []*types.Document
	for i := 0; i < 50; i++ {
		docs = append(docs, agoraDoc("_id", int32(i), "n", int32(0)))
	}

	h, dbName, cName := agoraSetup(t, docs...)

	db := must.NotFail(h.b.Database(dbName))
	c := must.NotFail(db.Collection(cName))

	agoraParallel(51, func(i int) {
		if i == 50 {
			p := &common.Delete{Filter: agoraDoc("n", agoraDoc("$lt", int32(1)))}
			_, err := h.execDelete(testutil.Ctx(t), c, p, dbName, cName)
			require.NoError(t, err)

			return
		}

		set := agoraDoc("$set", agoraDoc("n", int32(1)))
		agoraUpdate(t, h, dbName, cName, agoraDoc("q", agoraDoc("_id", int32(i)), "u", set))
	})

	// Every document left was raised; every document deleted was not (it would be left with n: 1).
	for _, d := range agoraAll(t, h, dbName, cName) {
		assert.Equal(t, int32(1), must.NotFail(d.Get("n")))
	}
}

// TestAgoraUpdateManyStatements: an update command with more statements than the SQLite backend's
// connection pool (100) completes; FerretDB held one connection per statement until the command ended.
func TestAgoraUpdateManyStatements(t *testing.T) {
	t.Parallel()

	var docs []*types.Document
	for i := 0; i < 1000; i++ {
		docs = append(docs, agoraDoc("_id", int32(i), "n", int32(0)))
	}

	h, dbName, cName := agoraSetup(t, docs...)

	statements := make([]*types.Document, 1000)
	for i := range statements {
		statements[i] = agoraDoc("q", agoraDoc("_id", int32(i)), "u", agoraDoc("$inc", agoraDoc("n", int32(1))))
	}

	done := make(chan [2]int32, 1)

	go func() {
		matched, modified := agoraUpdate(t, h, dbName, cName, statements...)
		done <- [2]int32{matched, modified}
	}()

	select {
	case res := <-done:
		assert.Equal(t, [2]int32{1000, 1000}, res)
	case <-time.After(2 * time.Minute):
		t.Fatal("a 1,000-statement update did not finish in 2 minutes")
	}

	for _, d := range agoraAll(t, h, dbName, cName) {
		assert.Equal(t, int32(1), must.NotFail(d.Get("n")))
	}
}
