// Tests of the backend's writes on the writer connection (agora_update.go, patch 0009).

package sqlite

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func TestAgoraWritesOnWriter(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	// As NewBackend makes it, with the registry at hand.
	r, err := metadata.NewRegistry(testutil.TestSQLiteURI(t, ""), 3, testutil.Logger(t), sp)
	require.NoError(t, err)

	b := backends.BackendContract(&backend{r: r})
	t.Cleanup(b.Close)

	dbName := testutil.DatabaseName(t)
	db, err := b.Database(dbName)
	require.NoError(t, err)

	require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}))

	c, err := db.Collection("c")
	require.NoError(t, err)

	// A file database: its writes go through the writer connection.
	sdb := r.DatabaseGetExisting(ctx, dbName)
	require.NotNil(t, sdb)
	require.True(t, sdb.AgoraHasWriter())

	_, err = c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "k_1", Key: []backends.IndexKeyPair{{Field: "k"}}, Unique: true},
	}})
	require.NoError(t, err)

	// One document at a time (a kept statement) and a bulk insert in batches of 3 (one-use statements).
	first := must.NotFail(types.NewDocument("_id", int32(0), "k", "k0"))
	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{first}})
	require.NoError(t, err)

	var docs []*types.Document
	for i := 1; i <= 10; i++ {
		docs = append(docs, must.NotFail(types.NewDocument("_id", int32(i), "k", fmt.Sprintf("k%d", i))))
	}

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
	require.NoError(t, err)

	// A duplicate _id and a duplicate unique key are duplicate-key errors, and nothing of the batch is written.
	for _, doc := range []*types.Document{
		must.NotFail(types.NewDocument("_id", int32(3), "k", "new")),
		must.NotFail(types.NewDocument("_id", int32(20), "k", "k4")),
	} {
		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{
			must.NotFail(types.NewDocument("_id", int32(21), "k", "k21")), doc,
		}})
		assert.True(t, backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID), "%v", err)
	}

	// Updates: counted, written, and a document that is not there is not counted.
	res, err := c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: []*types.Document{
		must.NotFail(types.NewDocument("_id", int32(1), "k", "k1", "n", int32(1))),
		must.NotFail(types.NewDocument("_id", int32(2), "k", "k2", "n", int32(2))),
		must.NotFail(types.NewDocument("_id", int32(99), "k", "k99")),
	}})
	require.NoError(t, err)
	assert.Equal(t, int32(2), res.Updated)

	q, err := c.Query(ctx, nil)
	require.NoError(t, err)

	got, err := iterator.ConsumeValues(q.Iter)
	require.NoError(t, err)

	ids := make(map[any]*types.Document)
	for _, d := range got {
		ids[must.NotFail(d.Get("_id"))] = d
	}

	assert.Len(t, got, 11) // 0–10
	assert.NotContains(t, ids, int32(21))
	assert.NotContains(t, ids, int32(20))
	assert.Equal(t, int32(2), must.NotFail(ids[int32(2)].Get("n")))
	assert.Equal(t, "k3", must.NotFail(ids[int32(3)].Get("k")))
}

// AgoraEachDoc: one transaction that skips (unordered) or stops at (ordered) the documents whose _id
// or unique key is taken, and says which; the others are written.
func TestAgoraInsertEach(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	r, err := metadata.NewRegistry(testutil.TestSQLiteURI(t, ""), 3, testutil.Logger(t), sp)
	require.NoError(t, err)

	b := backends.BackendContract(&backend{r: r})
	t.Cleanup(b.Close)

	db, err := b.Database(testutil.DatabaseName(t))
	require.NoError(t, err)

	require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}))

	c, err := db.Collection("c")
	require.NoError(t, err)

	_, err = c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "k_1", Key: []backends.IndexKeyPair{{Field: "k"}}, Unique: true},
	}})
	require.NoError(t, err)

	doc := func(id int32, k string) *types.Document { return must.NotFail(types.NewDocument("_id", id, "k", k)) }

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{doc(1, "a"), doc(2, "b")}})
	require.NoError(t, err)

	ids := func() []int32 {
		res, err := c.Query(ctx, nil)
		require.NoError(t, err)

		docs, err := iterator.ConsumeValues(res.Iter)
		require.NoError(t, err)

		var got []int32
		for _, d := range docs {
			got = append(got, must.NotFail(d.Get("_id")).(int32))
		}

		return got
	}

	insertEach := func(ordered bool, docs ...*types.Document) *fsql.AgoraInsertEach {
		each := &fsql.AgoraInsertEach{Ordered: ordered}
		_, err := c.InsertAll(fsql.WithAgoraInsertEach(ctx, each), &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)

		return each
	}

	// Unordered: a taken _id and a taken unique key are skipped, the rest written.
	each := insertEach(false, doc(3, "c"), doc(1, "x"), doc(4, "d"), doc(5, "b"), doc(6, "e"))
	assert.Equal(t, &fsql.AgoraInsertEach{Done: true, Inserted: 3, Duplicates: []int{1, 3}}, each)
	assert.ElementsMatch(t, []int32{1, 2, 3, 4, 6}, ids())

	// Ordered: the first duplicate ends the inserts; what came before it stays.
	each = insertEach(true, doc(7, "f"), doc(2, "y"), doc(8, "g"))
	assert.Equal(t, &fsql.AgoraInsertEach{Ordered: true, Done: true, Inserted: 1, Duplicates: []int{1}}, each)
	assert.ElementsMatch(t, []int32{1, 2, 3, 4, 6, 7}, ids())

	// No duplicate: all written, as a plain InsertAll.
	each = insertEach(false, doc(9, "h"))
	assert.Equal(t, &fsql.AgoraInsertEach{Done: true, Inserted: 1}, each)
	assert.ElementsMatch(t, []int32{1, 2, 3, 4, 6, 7, 9}, ids())

	// A capped collection is not served that way: the request stays undone and the batch fails whole.
	require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "capped", CappedSize: 1 << 20}))
	capped, err := db.Collection("capped")
	require.NoError(t, err)
	_, err = capped.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{doc(1, "a")}})
	require.NoError(t, err)

	each = &fsql.AgoraInsertEach{}
	_, err = capped.InsertAll(fsql.WithAgoraInsertEach(ctx, each), &backends.InsertAllParams{
		Docs: []*types.Document{doc(2, "b"), doc(1, "c")},
	})
	assert.True(t, backends.ErrorCodeIs(err, backends.ErrorCodeInsertDuplicateID), "%v", err)
	assert.False(t, each.Done)
}
