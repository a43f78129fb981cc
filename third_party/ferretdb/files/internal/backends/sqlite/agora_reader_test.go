// Tests of the backend's reads on reader connections with kept statements (fsql/agora_reader.go,
// patch 0011): the query texts hold no values, and the reads reuse their statements.

package sqlite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraReaderValues returns pairs of values of each type the pushdown binds, alike but for the value.
func agoraReaderValues() [][2]any {
	oid := func(b byte) types.ObjectID { return types.ObjectID{0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, b} }

	return [][2]any{
		{int32(1), int32(-7)},
		{int64(5), int64(1 << 40)},
		{0.5, -2.5},
		{3.0, 1e15},
		{"value-one", "value two"},
		{"", "plain"},
		{oid(1), oid(2)},
		{true, false},
		{time.UnixMilli(1_700_000_000_000).UTC(), time.UnixMilli(0).UTC()},
	}
}

// agoraInArray returns an array of n values of the type of v (v itself first).
func agoraInArray(v any, n int) *types.Array {
	arr := types.MakeArray(n)
	arr.Append(v)

	for i := 1; i < n; i++ {
		switch v := v.(type) {
		case int32:
			arr.Append(v + int32(i))
		case int64:
			arr.Append(v + int64(i))
		case float64:
			arr.Append(v + float64(i))
		case string:
			arr.Append(fmt.Sprintf("%s%d", v, i))
		case types.ObjectID:
			v[0] = byte(i)
			arr.Append(v)
		case bool:
			arr.Append(i%2 == 0)
		case time.Time:
			arr.Append(v.Add(time.Duration(i) * time.Millisecond))
		}
	}

	return arr
}

func TestAgoraReaderQueryTexts(t *testing.T) {
	t.Parallel()

	unranked := map[string]struct{}{"tags": {}}

	// Filters of one shape, for a value of each type the pushdown binds.
	shapes := map[string]func(v any) *types.Document{
		"eq": func(v any) *types.Document { return must.NotFail(types.NewDocument("f", v)) },
		"id": func(v any) *types.Document { return must.NotFail(types.NewDocument("_id", v)) },
		"range": func(v any) *types.Document {
			return must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$gte", v, "$lt", v))))
		},
		"keyset": func(v any) *types.Document {
			return must.NotFail(types.NewDocument("k", true, "$or", must.NotFail(types.NewArray(
				must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$lt", v)))),
				must.NotFail(types.NewDocument("f", v, "_id", must.NotFail(types.NewDocument("$lt", int32(3))))),
			))))
		},
		"unranked": func(v any) *types.Document { return must.NotFail(types.NewDocument("tags", v)) },
		"null":     func(any) *types.Document { return must.NotFail(types.NewDocument("f", types.Null)) },
	}

	for name, shape := range shapes {
		for _, pair := range agoraReaderValues() {
			a := agoraTranslate(shape(pair[0]), unranked)
			b := agoraTranslate(shape(pair[1]), unranked)

			assert.Equal(t, a.terms, b.terms, "%s %T", name, pair[0])
			assert.Equal(t, len(a.args), len(b.args), "%s %T", name, pair[0])

			for _, term := range a.terms {
				for _, v := range pair {
					if s, ok := v.(string); ok && s != "" {
						assert.NotContains(t, term, s, "%s: a value in the text", name)
					}
				}
			}
		}
	}

	// $in lists come in lengths of powers of two: 1, 2, 4, 8, ...
	for _, v := range []any{int32(1), "s", 0.5, types.ObjectID{1}, true, time.UnixMilli(5).UTC()} {
		for _, field := range []string{"f", "_id"} {
			texts := map[int]string{}

			for n := 1; n <= 1000; n++ {
				tr := agoraTranslate(must.NotFail(types.NewDocument(field, must.NotFail(types.NewDocument(
					"$in", agoraInArray(v, n))))), nil)
				require.NotEmpty(t, tr.terms)

				text := strings.Join(tr.terms, " AND ")
				size := 1

				for size < n {
					size *= 2
				}

				if prev, ok := texts[size]; ok {
					assert.Equal(t, prev, text, "%s $in of %d %T", field, n, v)
				}

				texts[size] = text
				assert.Equal(t, strings.Count(text, "?"), len(tr.args))
			}

			assert.Len(t, texts, 11)
		}
	}

	list, args := agoraInList([]any{"a", "b", "c"})
	assert.Equal(t, "?, ?, ?, ?", list)
	assert.Equal(t, []any{"a", "b", "c", "c"}, args)
}

func TestAgoraReaderReads(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	// As NewBackend makes it, with the registry at hand.
	r, err := metadata.NewRegistry(testutil.TestSQLiteURI(t, ""), 100, testutil.Logger(t), sp)
	require.NoError(t, err)

	b := backends.BackendContract(&backend{r: r})
	t.Cleanup(b.Close)

	dbName := testutil.DatabaseName(t)

	db, err := b.Database(dbName)
	require.NoError(t, err)

	require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}))

	c, err := db.Collection("c")
	require.NoError(t, err)

	_, err = c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "f", Key: []backends.IndexKeyPair{{Field: "f"}, {Field: "_id"}}},
	}})
	require.NoError(t, err)

	var docs []*types.Document

	for i, pair := range agoraReaderValues() {
		for j, v := range pair {
			docs = append(docs, must.NotFail(types.NewDocument("_id", int32(2*i+j), "f", v, "k", true)))
		}
	}

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
	require.NoError(t, err)

	agoraWaitShapes(t, c, dbName)

	fdb := r.DatabaseGetExisting(ctx, dbName)
	require.NotNil(t, fdb)

	query := func(filter *types.Document, sorted bool) []string {
		qctx := ctx
		if sorted {
			sort := must.NotFail(types.NewDocument("f", int64(1), "_id", int64(1)))
			qctx = common.AgoraWithSortRequest(ctx, &common.AgoraSortRequest{Sort: sort, Limit: 5})
		}

		res, err := c.Query(qctx, &backends.QueryParams{Filter: filter})
		require.NoError(t, err)

		got, err := iterator.ConsumeValues(res.Iter)
		require.NoError(t, err)

		var ids []string

		for _, doc := range got {
			if must.NotFail(common.FilterDocument(doc, filter)) {
				ids = append(ids, agoraID(doc))
			}
		}

		return ids
	}

	// Each value found by equality, $in, a range and the ordinary path, twice: the second time
	// every statement is kept already.
	var first []string

	for pass := 0; pass < 2; pass++ {
		before := fdb.AgoraReaderStats()

		var got []string

		for i, pair := range agoraReaderValues() {
			for j, v := range pair {
				id := fmt.Sprint(2*i + j)

				for _, filter := range []*types.Document{
					must.NotFail(types.NewDocument("f", v)),
					must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$in", agoraInArray(v, 3))))),
					must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$gte", v, "$lte", v)))),
				} {
					for _, sorted := range []bool{false, true} {
						ids := query(filter, sorted)
						assert.Contains(t, ids, id, "%s sorted %v", filter, sorted)

						got = append(got, strings.Join(ids, ","))
					}
				}
			}
		}

		after := fdb.AgoraReaderStats()
		assert.Zero(t, after.Pool-before.Pool)
		assert.Zero(t, after.Dropped)

		if pass == 0 {
			first = got
			assert.Positive(t, after.Prepared-before.Prepared)

			continue
		}

		assert.Equal(t, first, got)
		assert.Zero(t, after.Prepared-before.Prepared, "pass %d: statements prepared again", pass)
		assert.Equal(t, int64(len(got)), after.Hits-before.Hits)
	}
	// A raw read streamed (no LIMIT: rows read ahead by a goroutine) and one page read (LIMIT),
	// closed after one document, and an ordinary read closed after one: every reader given back.
	sort := must.NotFail(types.NewDocument("k", int64(1), "_id", int64(1)))
	filter := must.NotFail(types.NewDocument("k", true))

	for _, limit := range []int64{0, 5} {
		raw := new(common.AgoraRawRequest)
		qctx := common.AgoraWithRawRequest(
			common.AgoraWithSortRequest(ctx, &common.AgoraSortRequest{Sort: sort, Limit: limit}), raw,
		)

		res, err := c.Query(qctx, &backends.QueryParams{Filter: filter})
		require.NoError(t, err)
		require.True(t, raw.Ready, "limit %d", limit)

		b, doc, err := res.Iter.(common.AgoraRawIterator).NextRaw(nil)
		require.NoError(t, err)
		assert.True(t, len(b) > 0 || doc != nil)

		res.Iter.Close()
	}

	res, err := c.Query(ctx, &backends.QueryParams{Filter: filter})
	require.NoError(t, err)

	_, _, err = res.Iter.Next()
	require.NoError(t, err)
	res.Iter.Close()

	// Sequential reads use one reader at a time: whatever they opened is idle again.
	st := fdb.AgoraReaderStats()
	assert.Zero(t, st.Pool)
	assert.Zero(t, st.Busy)
	assert.Positive(t, st.Opened)

	// Idle readers serve the next reads without a new connection.
	assert.NotEmpty(t, query(filter, true))
	assert.Equal(t, st.Opened, fdb.AgoraReaderStats().Opened)
}
