// Tests of Agora's filter pushdown (agora_pushdown.go, patch 0001) on a real SQLite backend.

package sqlite

import (
	"fmt"
	"math"
	"slices"
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

func TestAgoraJSONText(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		v    any
		text string // "" when the value is not pushed down
	}{
		{int32(-7), "-7"},
		{int64(1 << 53), "9007199254740992"},
		{int64(1<<53 + 1), ""},
		{float64(5), "5"},
		{5.5, ""},
		{math.Copysign(0, -1), ""},
		{1e21, ""},
		{math.NaN(), ""},
		{"plain text", `"plain text"`},
		{"a<b", ""},
		{`say "hi"`, ""},
		{"café", ""},
		{"tab\t", ""},
		{true, ""},
		{types.Null, ""},
		{time.UnixMilli(0), ""},
		{types.ObjectID{0x65, 0xa1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4b}, `"65a10000000000000000004b"`},
	} {
		text, ok := agoraJSONText(tc.v)
		assert.Equal(t, tc.text != "", ok, "%#v", tc.v)
		assert.Equal(t, tc.text, text, "%#v", tc.v)
	}
}

func TestAgoraTranslate(t *testing.T) {
	t.Parallel()

	tr := agoraTranslate(must.NotFail(types.NewDocument(
		"f", int32(5),
		"g", must.NotFail(types.NewDocument("$in", must.NotFail(types.NewArray("a", int64(2), types.Null)))),
		"$and", must.NotFail(types.NewArray(
			must.NotFail(types.NewDocument("h", must.NotFail(types.NewDocument("$gte", time.UnixMilli(7))))),
		)),
		"b", true,
	)), nil)
	assert.True(t, tr.exact)
	assert.Len(t, tr.terms, 4)
	assert.Equal(t, []any{int64(5), "a", int64(2), int64(7), int64(1)}, tr.args)

	// A keyset page's $or gets its hull as a term of its own: value(t) <= the anchor's.
	anchor := time.UnixMilli(5000)
	tr = agoraTranslate(must.NotFail(types.NewDocument("$or", must.NotFail(types.NewArray(
		must.NotFail(types.NewDocument("t", must.NotFail(types.NewDocument("$lt", anchor)))),
		must.NotFail(types.NewDocument("t", anchor, "_id", must.NotFail(types.NewDocument("$lt", int32(9))))),
	)))), nil)
	assert.True(t, tr.exact)
	require.Len(t, tr.terms, 2)
	assert.Contains(t, tr.terms[1], "(_ferretdb_sjson->>'$.t') <= ?")
	assert.Equal(t, int64(5000), tr.args[len(tr.args)-1])

	for _, f := range []*types.Document{
		must.NotFail(types.NewDocument("not.plain", int32(1))),
		must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$ne", int32(1))))),
		must.NotFail(types.NewDocument("f", int64(1<<53+1))),
		must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("a", int32(1))))),
		must.NotFail(types.NewDocument("tags", "x")),
		must.NotFail(types.NewDocument("$or", must.NotFail(types.NewArray(
			must.NotFail(types.NewDocument("tags", "x")),
		)))),
	} {
		tr = agoraTranslate(f, map[string]struct{}{"tags": {}})
		assert.False(t, tr.exact, "%s", f)
	}
}

// TestAgoraPushdownNeverDropsAMatch: for every filter, every document FerretDB's matcher accepts
// among all documents is among those the pushed-down query returns (it may return more: the handler
// filters them), and the indexed filters really are pushed down.
func TestAgoraPushdownNeverDropsAMatch(t *testing.T) {
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

	cName := testutil.CollectionName(t)
	require.NoError(t, db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: cName}))

	c, err := db.Collection(cName)
	require.NoError(t, err)

	_, err = c.CreateIndexes(ctx, &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "f_1", Key: []backends.IndexKeyPair{{Field: "f"}}},
		{Name: "g_1", Key: []backends.IndexKeyPair{{Field: "g"}}},
	}})
	require.NoError(t, err)

	oid := types.ObjectID{0x65, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18, 0x29, 0x3a, 0x4b}
	values := []any{
		int32(5), float64(5), int64(5), must.NotFail(types.NewArray(int32(5), int32(6))), int32(2), "5", types.Null,
		must.NotFail(types.NewDocument("a", int32(5))), 5.5, math.Copysign(0, -1), int32(0), "a<b&c>", "café",
		`say "hi"\`, true, false, oid, int64(1<<53 + 1), "plain text",
		must.NotFail(types.NewArray("plain text", "other")), time.UnixMilli(1_767_225_600_000).UTC(), 1e21, int32(-7),
		strings.Repeat("x", 300),
	}

	var docs []*types.Document
	for i, v := range values {
		docs = append(docs, must.NotFail(types.NewDocument("_id", int32(i), "f", v, "g", int32(i%3))))
	}

	docs = append(docs,
		must.NotFail(types.NewDocument("_id", int32(100))),
		must.NotFail(types.NewDocument("_id", "25", "f", "string id")),
		must.NotFail(types.NewDocument("_id", oid, "f", "object id")),
	)

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
	require.NoError(t, err)

	in := func(vs ...any) *types.Document {
		return must.NotFail(types.NewDocument("$in", must.NotFail(types.NewArray(vs...))))
	}
	filters := []*types.Document{
		must.NotFail(types.NewDocument()),
		must.NotFail(types.NewDocument("_id", int32(1))),
		must.NotFail(types.NewDocument("_id", "25")),
		must.NotFail(types.NewDocument("_id", oid)),
		must.NotFail(types.NewDocument("_id", in(int32(1), "25", oid))),
		must.NotFail(types.NewDocument("g", int32(1), "$and", must.NotFail(types.NewArray(
			must.NotFail(types.NewDocument("f", in(int32(5), "plain text"))))))),
		must.NotFail(types.NewDocument("f", must.NotFail(types.NewDocument("$eq", int32(5))))),
		must.NotFail(types.NewDocument("f", in())),
		must.NotFail(types.NewDocument("f", in(types.Null))),
	}

	for _, v := range values {
		filters = append(filters, must.NotFail(types.NewDocument("f", v)))
	}

	// Twice: while the collection's unranked fields are unknown (wide terms), and once they are known.
	agoraWaitShapes(t, c, testutil.DatabaseName(t))
	agoraForgetShapes(testutil.DatabaseName(t))

	for _, wide := range []bool{true, false} {
		if !wide {
			agoraShapes.Range(func(k, _ any) bool {
				if strings.HasPrefix(k.(string), testutil.DatabaseName(t)+"\x00") {
					agoraShapes.Delete(k)
				}

				return true
			})
			agoraWaitShapes(t, c, testutil.DatabaseName(t))
		}

		agoraCheckFilters(t, c, docs, filters)
	}

	for _, v := range []any{int32(1), float64(2)} {
		ex, err := c.Explain(ctx, &backends.ExplainParams{Filter: must.NotFail(types.NewDocument("g", v))})
		require.NoError(t, err)
		assert.True(t, ex.FilterPushdown, "%v", v)

		plan, err := iterator.ConsumeValues(must.NotFail(ex.QueryPlanner.Get("Plan")).(*types.Array).Iterator())
		require.NoError(t, err)
		assert.Regexp(t, `USING INDEX \w+_g_1 `, fmt.Sprint(plan...), "%v", v)
	}
}

// agoraCheckFilters checks that every document FerretDB's matcher accepts among docs is among those
// the pushed-down query of each filter returns.
func agoraCheckFilters(t *testing.T, c backends.Collection, docs, filters []*types.Document) {
	t.Helper()

	ctx := testutil.Ctx(t)

	for _, filter := range filters {
		var expected []string

		for _, doc := range docs {
			if must.NotFail(common.FilterDocument(doc, filter)) {
				expected = append(expected, agoraID(doc))
			}
		}

		res, err := c.Query(ctx, &backends.QueryParams{Filter: filter})
		require.NoError(t, err)

		returned, err := iterator.ConsumeValues(res.Iter)
		require.NoError(t, err)

		var got []string

		for _, doc := range returned {
			if must.NotFail(common.FilterDocument(doc, filter)) {
				got = append(got, agoraID(doc))
			}
		}

		slices.Sort(expected)
		slices.Sort(got)
		assert.Equal(t, expected, got, "filter %s", filter)
	}
}

func agoraID(doc *types.Document) string {
	return types.FormatAnyValue(must.NotFail(doc.Get("_id")))
}

// TestAgoraPushdownOff: with AGORA_FERRETDB_PUSHDOWN=off nothing is planned.
func TestAgoraPushdownOff(t *testing.T) {
	agoraPushdownOff = true
	t.Cleanup(func() { agoraPushdownOff = false })

	p, err := agoraPlanQuery(testutil.Ctx(t), nil, "db", "t", must.NotFail(types.NewDocument("f", int32(5))),
		must.NotFail(types.NewDocument("f", int64(1))), 10)
	require.NoError(t, err)
	assert.Equal(t, &agoraPlan{}, p)
}

// TestAgoraIDLookup: an unsorted lookup by _id alone is planned with the term on FerretDB's _id index
// only, not exact (FerretDB filters what it returns); anything else is planned as before.
func TestAgoraIDLookup(t *testing.T) {
	t.Parallel()

	oid := types.ObjectID{0x65, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18, 0x29, 0x3a, 0x4b}
	doc := func(pairs ...any) *types.Document { return must.NotFail(types.NewDocument(pairs...)) }
	arr := func(vs ...any) *types.Array { return must.NotFail(types.NewArray(vs...)) }

	for _, f := range []*types.Document{
		doc("_id", int32(5)),
		doc("_id", doc("$eq", "x")),
		doc("_id", doc("$in", arr(int32(1), "25", oid))),
		doc("_id", float64(0)),
	} {
		p, err := agoraPlanQuery(testutil.Ctx(t), nil, "db", "t", f, nil, 0)
		require.NoError(t, err)
		assert.Regexp(t, `^ WHERE _ferretdb_sjson->"_id" IN \(\?(, \?)*\)$`, p.where, "%v", f)
		assert.False(t, p.filterExact)
		assert.Equal(t, "agora: SQL filter, sorted in FerretDB", p.Path())
	}

	for _, f := range []*types.Document{
		doc("_id", int32(5), "f", int32(1)),
		doc("_id", doc("$gt", int32(5))),
		doc("_id", doc("$eq", int32(5), "$ne", int32(6))),
		doc("_id", doc("$in", arr())),
		doc("_id", doc("$in", arr(int32(1), doc("a", int32(1))))),
		doc("_id", math.Copysign(0, -1)),
		doc("_id", doc("a", int32(1))),
		doc("f", int32(5)),
	} {
		_, _, ok := agoraIDLookup(f)
		assert.False(t, ok, "%v", f)
	}
}
