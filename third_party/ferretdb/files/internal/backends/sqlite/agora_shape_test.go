// Tests of agoraScanShape and agoraUnranked (agora_sort.go): the unranked fields read from the
// documents' type schemas in Go are the ones the SQL query finds, and the first query waits for them.

package sqlite

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func TestAgoraScanShape(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

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

	sdb := r.DatabaseGetExisting(ctx, dbName)
	require.NotNil(t, sdb)

	table := r.CollectionGet(ctx, dbName, "c").TableName

	shapes := func() ([]string, bool, []string) {
		t.Helper()

		scanned, ok, err := agoraScanShape(ctx, sdb, table)
		require.NoError(t, err)

		queried, err := agoraQueryShape(ctx, sdb, table)
		require.NoError(t, err)

		slices.Sort(scanned)
		slices.Sort(queried)

		return scanned, ok, queried
	}

	scanned, ok, queried := shapes()
	assert.True(t, ok, "an empty collection")
	assert.Empty(t, scanned)
	assert.Empty(t, queried)

	// Runs of documents sharing a schema, schemas that are prefixes of others, every stored type.
	values := []any{
		int32(1), int64(2), 3.5, "s", types.ObjectID{1}, true, time.UnixMilli(1).UTC(), types.Null,
		must.NotFail(types.NewArray(int32(1))), must.NotFail(types.NewDocument("x", int32(1))),
		types.Binary{B: []byte{1}}, types.Regex{Pattern: "a"}, types.Timestamp(1),
		must.NotFail(types.NewArray()), must.NotFail(types.NewDocument()),
	}

	var docs []*types.Document

	for i, v := range values {
		for j := 0; j < 3; j++ {
			id := int32(10*i + j)
			docs = append(docs,
				must.NotFail(types.NewDocument("_id", id, "f", int32(j))),
				must.NotFail(types.NewDocument("_id", id+1000, "f", int32(j), fmt.Sprintf("v%d", i), v)),
				must.NotFail(types.NewDocument("_id", id+2000, "g", v, "f", "x")),
			)
		}
	}

	_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
	require.NoError(t, err)

	scanned, ok, queried = shapes()
	assert.True(t, ok)
	assert.Equal(t, queried, scanned)
	assert.Equal(t, []string{"g", "v10", "v11", "v12", "v13", "v14", "v8", "v9"}, scanned)

	// The first query of the collection waits for the load it starts (agoraShapeWait), rather than
	// being planned without the fields.
	unranked, known := agoraUnranked(sdb, dbName, table)
	require.True(t, known)
	assert.Len(t, unranked, 8)

	// A schema the transcoder does not read (an element without a type): the SQL query answers.
	_, err = sdb.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %q (%s) VALUES (?)`, table, metadata.DefaultColumn),
		`{"$s":{"p":{"_id":{"t":"int"},"h":{}},"$k":["_id","h"]},"_id":5000,"h":1}`)
	require.NoError(t, err)

	scanned, ok, _ = shapes()
	assert.False(t, ok)
	assert.Empty(t, scanned)

	require.NoError(t, agoraLoadShape(ctx, sdb, dbName, table))

	unranked, known = agoraUnranked(sdb, dbName, table)
	require.True(t, known)
	assert.Len(t, unranked, 8)
}
