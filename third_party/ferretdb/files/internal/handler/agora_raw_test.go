// Tests of Agora's raw reads (agora_raw.go, patch 0008) on a real SQLite backend: whole find and
// getMore replies of random queries, the raw path against a handler with the pushdown disabled
// (FerretDB's path), byte for byte.

package handler

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/clientconn/conninfo"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraRawValue returns a value of a random type: mostly what the transcoder writes, sometimes
// what it leaves to FerretDB's path (binary data, an empty document), and strings JSON escapes.
func agoraRawValue(r *rand.Rand) any {
	switch r.Intn(12) {
	case 0:
		return int32(r.Intn(7) - 3)
	case 1:
		return int64(1<<53) + int64(r.Intn(5)) - 2
	case 2:
		return []float64{math.Copysign(0, -1), 0.5, -2.5, 1e21, 3, 5e-324}[r.Intn(6)]
	case 3:
		return []string{"", "a", "<p>a &amp; b</p>\n", "é", `q"uote`, `back\slash`, "\x01", "😀", "\u2028"}[r.Intn(9)]
	case 4:
		return time.UnixMilli(int64(r.Intn(5)-2) * 1_000_000_000_000).UTC()
	case 5:
		return r.Intn(2) == 0
	case 6:
		return types.Null
	case 7:
		return types.ObjectID{byte(r.Intn(3)), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(r.Intn(3))}
	case 8:
		return must.NotFail(types.NewArray(int32(r.Intn(3)), "x", must.NotFail(types.NewDocument("y", 1.5))))
	case 9:
		return must.NotFail(types.NewDocument("exemplary", int32(r.Intn(2)), "noise", int32(0)))
	case 10:
		if r.Intn(4) == 0 {
			return types.Binary{Subtype: types.BinaryGeneric, B: []byte{1, 2}}
		}

		return must.NotFail(types.NewDocument())
	default:
		return int32(r.Intn(5))
	}
}

// agoraFindReply runs a find command and every getMore it needs; it returns the batches' raw
// bytes and whether the first reply left a cursor open.
func agoraFindReply(t *testing.T, h *Handler, dbName string, cmd *types.Document) ([]wirebson.RawArray, bool) {
	t.Helper()

	ctx := conninfo.Ctx(testutil.Ctx(t), conninfo.New())

	cmd.Set("$db", dbName)
	msg, err := wire.NewOpMsg(must.NotFail(bson.FromDocument(cmd)))
	require.NoError(t, err)

	res, err := h.MsgFind(ctx, msg)
	require.NoError(t, err)

	var batches []wirebson.RawArray

	reply := must.NotFail(must.NotFail(res.RawDocument()).Decode())
	cursor := must.NotFail(reply.Get("cursor").(wirebson.RawDocument).Decode())
	batches = append(batches, cursor.Get("firstBatch").(wirebson.RawArray))
	open := cursor.Get("id").(int64) != 0

	for id := cursor.Get("id").(int64); id != 0; {
		getMore := must.NotFail(types.NewDocument(
			"getMore", id, "collection", must.NotFail(cmd.Get("find")), "batchSize", int32(3), "$db", dbName,
		))
		msg, err = wire.NewOpMsg(must.NotFail(bson.FromDocument(getMore)))
		require.NoError(t, err)

		res, err = h.MsgGetMore(ctx, msg)
		require.NoError(t, err)

		reply = must.NotFail(must.NotFail(res.RawDocument()).Decode())
		cursor = must.NotFail(reply.Get("cursor").(wirebson.RawDocument).Decode())
		batches = append(batches, cursor.Get("nextBatch").(wirebson.RawArray))
		id = cursor.Get("id").(int64)
	}

	return batches, open
}

func TestAgoraRawReads(t *testing.T) {
	t.Parallel()

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	b, err := sqlite.NewBackend(&sqlite.NewBackendParams{
		URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp, BatchSize: 100,
	})
	require.NoError(t, err)

	raw, err := New(&NewOpts{Backend: b, L: testutil.Logger(t), StateProvider: sp, BatchSize: 100})
	require.NoError(t, err)
	t.Cleanup(raw.Close)

	off, err := New(&NewOpts{Backend: b, L: testutil.Logger(t), StateProvider: sp, BatchSize: 100, DisablePushdown: true})
	require.NoError(t, err)

	dbName := testutil.DatabaseName(t)

	db, err := b.Database(dbName)
	require.NoError(t, err)

	var rawFinds, queries int

	for corpus := 0; corpus < 4; corpus++ {
		r := rand.New(rand.NewSource(int64(corpus)))
		cName := fmt.Sprintf("c%d", corpus)
		require.NoError(t, db.CreateCollection(testutil.Ctx(t), &backends.CreateCollectionParams{Name: cName}))

		c, err := db.Collection(cName)
		require.NoError(t, err)

		_, err = c.CreateIndexes(testutil.Ctx(t), &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
			{Name: "k_id", Key: []backends.IndexKeyPair{{Field: "k"}, {Field: "_id"}}},
		}})
		require.NoError(t, err)

		var docs []*types.Document

		for i := 0; i < 40; i++ {
			doc := must.NotFail(types.NewDocument("_id", int32(i), "k", int32(r.Intn(3))))
			for _, f := range []string{"a", "text", "w", "x"} {
				if r.Intn(6) > 0 {
					doc.Set(f, agoraRawValue(r))
				}
			}

			docs = append(docs, doc)
		}

		_, err = c.InsertAll(testutil.Ctx(t), &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)

		// The first query of a collection reads its field types in the background (agora_sort.go).
		agoraFindReply(t, raw, dbName, must.NotFail(types.NewDocument("find", cName)))
		time.Sleep(200 * time.Millisecond)

		for q := 0; q < 60; q++ {
			cmd := must.NotFail(types.NewDocument("find", cName))

			switch r.Intn(5) {
			case 0:
				cmd.Set("filter", must.NotFail(types.NewDocument("k", int32(r.Intn(3)))))
			case 1:
				gte := must.NotFail(types.NewDocument("$gte", int32(r.Intn(40))))
				cmd.Set("filter", must.NotFail(types.NewDocument("_id", gte)))
			case 2:
				cmd.Set("filter", must.NotFail(types.NewDocument("a.y", 1.5))) // a dotted path: FerretDB's path
			case 3:
				cmd.Set("filter", must.NotFail(types.NewDocument("a", agoraRawValue(r)))) // inexact in SQL at times
			}

			dir := []int32{1, -1}[r.Intn(2)]
			cmd.Set("sort", [](*types.Document){
				must.NotFail(types.NewDocument("_id", dir)),
				must.NotFail(types.NewDocument("k", dir, "_id", -dir)),
			}[r.Intn(2)])

			switch r.Intn(6) {
			case 0:
				cmd.Set("projection", must.NotFail(types.NewDocument("text", int32(0))))
			case 1:
				cmd.Set("projection", must.NotFail(types.NewDocument("text", false, "_id", 0.0, "w", int64(0))))
			case 2:
				cmd.Set("projection", must.NotFail(types.NewDocument("text", int32(1)))) // an inclusion: FerretDB's path
			case 3:
				cmd.Set("projection", must.NotFail(types.NewDocument()))
			}

			if r.Intn(2) == 0 {
				cmd.Set("limit", int64(r.Intn(15)))
			}

			if r.Intn(3) == 0 {
				cmd.Set("batchSize", int32(r.Intn(8)+1))
			}

			if r.Intn(6) == 0 {
				cmd.Set("skip", int64(r.Intn(3)))
			}

			before := agoraRawFinds.Load()
			expected, expectedOpen := agoraFindReply(t, off, dbName, cmd.DeepCopy())
			actual, actualOpen := agoraFindReply(t, raw, dbName, cmd.DeepCopy())

			if agoraRawFinds.Load() > before {
				rawFinds++
			}

			queries++

			assert.Equal(t, expectedOpen, actualOpen, "%s", cmd)
			assert.Equal(t, expected, actual, "%s", cmd)
		}
	}

	t.Logf("%d queries, %d on the raw path", queries, rawFinds)

	// The raw path was taken often enough for the comparison to mean something, and not always.
	assert.Greater(t, rawFinds, queries/4)
	assert.Less(t, rawFinds, queries)
}

// TestAgoraExplainDottedFilter: a sorted, limited find whose filter has a dotted top-level key gets
// no LIMIT in SQL (the handler keeps that term from the backend), and explain says so, as it says
// LIMIT for the same find without it.
func TestAgoraExplainDottedFilter(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t,
		agoraDoc("_id", int32(1), "a", agoraDoc("y", 2.5)),
		agoraDoc("_id", int32(2), "a", agoraDoc("y", 1.5)),
		agoraDoc("_id", int32(3), "a", agoraDoc("y", 1.5)),
	)

	db, err := h.b.Database(dbName)
	require.NoError(t, err)
	c, err := db.Collection(cName)
	require.NoError(t, err)
	_, err = c.CreateIndexes(testutil.Ctx(t), &backends.CreateIndexesParams{Indexes: []backends.IndexInfo{
		{Name: "id", Key: []backends.IndexKeyPair{{Field: "_id"}}},
	}})
	require.NoError(t, err)

	// The first query of a collection reads its field types in the background (agora_sort.go).
	agoraFindReply(t, h, dbName, agoraDoc("find", cName))
	time.Sleep(200 * time.Millisecond)

	explain := func(filter *types.Document) (string, bool) {
		find := agoraDoc("find", cName, "filter", filter, "sort", agoraDoc("_id", int32(1)), "limit", int64(1))
		cmd := agoraDoc("explain", find)
		cmd.Set("$db", dbName)
		msg, err := wire.NewOpMsg(must.NotFail(bson.FromDocument(cmd)))
		require.NoError(t, err)

		res, err := h.MsgExplain(conninfo.Ctx(testutil.Ctx(t), conninfo.New()), msg)
		require.NoError(t, err)

		reply := must.NotFail(must.NotFail(res.RawDocument()).Decode())
		planner := must.NotFail(reply.Get("queryPlanner").(wirebson.RawDocument).Decode())

		return planner.Get("agoraPath").(string), reply.Get("limitPushdown").(bool)
	}

	path, limited := explain(agoraDoc())
	assert.Equal(t, "agora: SQL sort and limit", path)
	assert.True(t, limited)

	path, limited = explain(agoraDoc("a.y", 1.5))
	assert.Equal(t, "agora: SQL sort, read until the page is full", path)
	assert.False(t, limited)

	// And the find itself returns the first match, not nothing (the first document does not match).
	batches, _ := agoraFindReply(t, h, dbName, agoraDoc(
		"find", cName, "filter", agoraDoc("a.y", 1.5), "sort", agoraDoc("_id", int32(1)), "limit", int64(1),
	))
	docs := must.NotFail(batches[0].Decode())
	require.Equal(t, 1, docs.Len())
	assert.Equal(t, int32(2), must.NotFail(docs.Get(0).(wirebson.RawDocument).Decode()).Get("_id"))
}
