// ListCollections with a name (patch 0013 looks that one collection up) answers as the list of all
// collections filtered to that name did.

package sqlite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func TestAgoraListCollectionsByName(t *testing.T) {
	t.Parallel()
	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	b, err := NewBackend(&NewBackendParams{URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp})
	require.NoError(t, err)
	t.Cleanup(b.Close)

	dbName := testutil.DatabaseName(t)
	db, err := b.Database(dbName)
	require.NoError(t, err)

	names := []string{"topics", "comments", "Comments", "marks", "a.b", "capped"}

	// before the database exists
	for _, name := range names {
		res, err := db.ListCollections(ctx, &backends.ListCollectionsParams{Name: name})
		require.NoError(t, err)
		assert.NotNil(t, res.Collections)
		assert.Empty(t, res.Collections)
	}

	for _, name := range names {
		params := &backends.CreateCollectionParams{Name: name}
		if name == "capped" {
			params.CappedSize = 4096
			params.CappedDocuments = 10
		}

		require.NoError(t, db.CreateCollection(ctx, params))
	}

	all, err := db.ListCollections(ctx, nil)
	require.NoError(t, err)
	require.Len(t, all.Collections, len(names))

	for _, name := range append(names, "missing", "topic", "topicsx", "COMMENTS", "") {
		expected := []backends.CollectionInfo{}

		for _, c := range all.Collections {
			if c.Name == name {
				expected = append(expected, c)
			}
		}

		params := &backends.ListCollectionsParams{Name: name}
		if name == "" {
			expected = all.Collections // no name: all of them
		}

		res, err := db.ListCollections(ctx, params)
		require.NoError(t, err)
		assert.Equal(t, expected, res.Collections, "%q", name)
	}

	capped, err := db.ListCollections(ctx, &backends.ListCollectionsParams{Name: "capped"})
	require.NoError(t, err)
	require.Len(t, capped.Collections, 1)
	assert.Equal(t, int64(4096), capped.Collections[0].CappedSize)
	assert.Equal(t, int64(10), capped.Collections[0].CappedDocuments)
}
