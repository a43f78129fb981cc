// Tests of Agora's sorted reads (agora_sort.go, patch 0007) on a real SQLite backend: random corpora
// and queries, the sorted path against FerretDB's own filter and sort.

package sqlite

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraRandomValue returns a ranked scalar of a random type, or (when arrays) sometimes an array.
func agoraRandomValue(r *rand.Rand, arrays bool) any {
	switch r.Intn(13) {
	case 0:
		return int32(r.Intn(7) - 3)
	case 1:
		return int64(1<<53) + int64(r.Intn(5)) - 2
	case 2:
		return []float64{math.Copysign(0, -1), 0.5, -2.5, 1e21, 3}[r.Intn(5)]
	case 3:
		strs := []string{"", "a", "a b", "ab", "a!", "é", "\u00e9t\u00e9", `q"uote`, `back\slash`, "<&>", "\x01", "z"}
		return strs[r.Intn(len(strs))]
	case 4:
		return time.UnixMilli(int64(r.Intn(5)) * 1_000_000_000_000).UTC()
	case 5:
		return r.Intn(2) == 0
	case 6:
		return types.Null
	case 7:
		return types.ObjectID{byte(r.Intn(3)), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(r.Intn(3))}
	case 8:
		if arrays {
			return must.NotFail(types.NewArray(int32(r.Intn(3)), "x"))
		}

		return int32(r.Intn(3))
	default:
		return int32(r.Intn(5))
	}
}

func TestAgoraSortedReads(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	b, err := NewBackend(&NewBackendParams{
		URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp, BatchSize: 100,
	})
	require.NoError(t, err)
	t.Cleanup(b.Close)

	db, err := b.Database(testutil.DatabaseName(t))
	require.NoError(t, err)

	var sortedRuns, limitRuns int

	for corpus := 0; corpus < 6; corpus++ {
		r := rand.New(rand.NewSource(int64(corpus)))
		cName := fmt.Sprintf("c%d", corpus)
		require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: cName}))

		c, err := db.Collection(cName)
		require.NoError(t, err)

		_, err = c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
			{Name: "k_a", Key: []backends.IndexKeyPair{{Field: "k"}, {Field: "a", Descending: true}, {Field: "_id"}}},
		}})
		require.NoError(t, err)

		var docs []*types.Document

		for i := 0; i < 60; i++ {
			doc := must.NotFail(types.NewDocument("_id", int32(i), "k", r.Intn(2) == 0))
			if r.Intn(8) > 0 {
				doc.Set("a", agoraRandomValue(r, corpus%3 == 2))
			}

			doc.Set("n", int32(r.Intn(4)))
			docs = append(docs, doc)
		}

		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)

		agoraWaitShapes(t, c, testutil.DatabaseName(t))

		for q := 0; q < 80; q++ {
			filter := types.MakeDocument(0)

			switch r.Intn(5) {
			case 0:
				filter.Set("k", r.Intn(2) == 0)
			case 1:
				filter.Set("a", must.NotFail(types.NewDocument("$gt", agoraRandomValue(r, false))))
			case 2:
				filter.Set("$or", must.NotFail(types.NewArray(
					must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("$lt", agoraRandomValue(r, false))))),
					must.NotFail(types.NewDocument("a", agoraRandomValue(r, false), "_id", must.NotFail(
						types.NewDocument("$lt", int32(r.Intn(60)))))),
				)))
			case 3:
				filter.Set("n", must.NotFail(types.NewDocument("$in", must.NotFail(types.NewArray(int32(1), types.Null)))))
			}

			dir := []int64{1, -1}[r.Intn(2)]
			sort := must.NotFail(types.NewDocument([]string{"a", "n", "k"}[r.Intn(3)], dir, "_id", dir))
			skip, limit := int64(r.Intn(3)), int64(r.Intn(12))

			var expected []*types.Document

			for _, doc := range docs {
				if must.NotFail(common.FilterDocument(doc, filter)) {
					expected = append(expected, doc)
				}
			}

			require.NoError(t, common.SortDocuments(expected, sort))

			req := &common.AgoraSortRequest{Sort: sort, Limit: map[bool]int64{true: skip + limit}[limit > 0]}
			res, err := c.Query(common.AgoraWithSortRequest(ctx, req), &backends.QueryParams{Filter: filter})
			require.NoError(t, err)

			got, err := iterator.ConsumeValues(res.Iter)
			require.NoError(t, err)

			var matched []*types.Document

			for _, doc := range got {
				if must.NotFail(common.FilterDocument(doc, filter)) {
					matched = append(matched, doc)
				}
			}

			if req.Sorted {
				sortedRuns++
			} else {
				require.NoError(t, common.SortDocuments(matched, sort))
			}

			exReq := &common.AgoraSortRequest{Sort: sort, Limit: req.Limit}
			ex, err := c.Explain(common.AgoraWithSortRequest(ctx, exReq), &backends.ExplainParams{Filter: filter})
			require.NoError(t, err)

			if ex.LimitPushdown {
				limitRuns++
			}

			assert.Equal(t, agoraIDs(agoraPage(expected, skip, limit)), agoraIDs(agoraPage(matched, skip, limit)),
				"corpus %d filter %s sort %s skip %d limit %d", corpus, filter, sort, skip, limit)
		}
	}

	// The sorted path and LIMIT were taken often enough for the comparison to mean something.
	assert.Greater(t, sortedRuns, 200)
	assert.Greater(t, limitRuns, 50)
}

func agoraPage(docs []*types.Document, skip, limit int64) []*types.Document {
	docs = docs[min(int(skip), len(docs)):]
	if limit > 0 {
		docs = docs[:min(int(limit), len(docs))]
	}

	return docs
}

func agoraIDs(docs []*types.Document) []string {
	ids := make([]string, len(docs))
	for i, doc := range docs {
		ids[i] = agoraID(doc)
	}

	return ids
}

// agoraWaitShapes waits until the unranked fields of every collection of dbName that has been
// queried, c included, are known (agoraUnranked reads them in the background).
func agoraWaitShapes(t *testing.T, c backends.Collection, dbName string) {
	t.Helper()

	res, err := c.Query(testutil.Ctx(t), new(backends.QueryParams))
	require.NoError(t, err)
	res.Iter.Close()

	require.Eventually(t, func() bool {
		loaded := true

		agoraShapes.Range(func(k, v any) bool {
			if strings.HasPrefix(k.(string), dbName+"\x00") {
				s := v.(*agoraShape)
				s.mu.Lock()
				loaded = loaded && s.loaded
				s.mu.Unlock()
			}

			return true
		})

		return loaded
	}, 30*time.Second, 5*time.Millisecond)
}

// agoraForgetShapes makes the unranked fields of dbName's collections unknown again, and keeps them
// so (as while they are being read): queries are then planned in wide mode.
func agoraForgetShapes(dbName string) {
	agoraShapes.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), dbName+"\x00") {
			agoraShapes.Store(k, &agoraShape{loading: true, unranked: map[string]struct{}{}})
		}

		return true
	})
}
