// Tests of Agora's projection shortcuts (patch 0004): the answers are FerretDB's.

package common

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func agoraProjectionDoc() *types.Document {
	return must.NotFail(types.NewDocument(
		"_id", int32(3),
		"yes", true,
		"nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("b", "deep", "c", int32(1))))),
		"list", must.NotFail(types.NewArray(int32(1), must.NotFail(types.NewDocument("x", "y")))),
		"bin", types.Binary{B: []byte{1, 2}},
	))
}

// project runs doc through FerretDB's projection iterator, as find does.
func agoraProject(t *testing.T, doc, projection *types.Document) *types.Document {
	t.Helper()

	closer := iterator.NewMultiCloser()
	defer closer.Close()

	iter, err := ProjectionIterator(iterator.Values(iterator.ForSlice([]*types.Document{doc})), closer, projection, nil)
	require.NoError(t, err)

	docs, err := iterator.ConsumeValues(iter)
	require.NoError(t, err)
	require.Len(t, docs, 1)

	return docs[0]
}

// TestAgoraEmptyProjection: with nothing to project the document is returned as read, and that is
// what FerretDB's projection returns for it.
func TestAgoraEmptyProjection(t *testing.T) {
	t.Parallel()

	doc := agoraProjectionDoc()
	projected := agoraProject(t, doc, must.NotFail(types.NewDocument()))
	assert.Same(t, doc, projected)

	expected, err := ProjectDocument(agoraProjectionDoc(), must.NotFail(types.NewDocument()), nil, false)
	require.NoError(t, err)
	testutil.AssertEqual(t, expected, projected)
}

// TestAgoraExclusionProjection: an exclusion edits a private copy; the answer is the document
// without the excluded paths, and the document read is unchanged.
func TestAgoraExclusionProjection(t *testing.T) {
	t.Parallel()

	for name, tc := range map[string]struct {
		projection *types.Document
		expected   *types.Document
	}{
		"top-level": {
			must.NotFail(types.NewDocument("nested", int32(0), "bin", false)),
			must.NotFail(types.NewDocument("_id", int32(3), "yes", true,
				"list", must.NotFail(types.NewArray(int32(1), must.NotFail(types.NewDocument("x", "y")))))),
		},
		"_id and a field": {
			must.NotFail(types.NewDocument("_id", int32(0), "yes", int32(0))),
			must.NotFail(types.NewDocument(
				"nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("b", "deep", "c", int32(1))))),
				"list", must.NotFail(types.NewArray(int32(1), must.NotFail(types.NewDocument("x", "y")))),
				"bin", types.Binary{B: []byte{1, 2}},
			)),
		},
		"dotted": {
			must.NotFail(types.NewDocument("nested.a.b", int32(0), "list.x", int32(0), "yes", int32(0), "bin", int32(0))),
			must.NotFail(types.NewDocument("_id", int32(3),
				"nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("c", int32(1))))),
				"list", must.NotFail(types.NewArray(int32(1), must.NotFail(types.NewDocument()))))),
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			doc := agoraProjectionDoc()
			projected := agoraProject(t, doc, tc.projection)
			testutil.AssertEqual(t, tc.expected, projected)
			testutil.AssertEqual(t, agoraProjectionDoc(), doc)
		})
	}
}

// TestAgoraInclusionProjection: inclusions take FerretDB's path unchanged.
func TestAgoraInclusionProjection(t *testing.T) {
	t.Parallel()

	doc := agoraProjectionDoc()
	projected := agoraProject(t, doc, must.NotFail(types.NewDocument("yes", int32(1), "nested.a.c", true)))
	expected := must.NotFail(types.NewDocument("_id", int32(3), "yes", true,
		"nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("c", int32(1)))))))
	testutil.AssertEqual(t, expected, projected)
	testutil.AssertEqual(t, agoraProjectionDoc(), doc)
}
