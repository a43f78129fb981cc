// Tests of patch 0012 on a real SQLite backend: single-document updates and findAndModify end their
// read before they write, so the WAL checkpoint completes and the WAL restarts instead of growing
// with every write.

package handler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// TestAgoraWALRestartsUnderUpdates: 3,000 single-document writes one after another (updates and
// findAndModify, 2 WAL frames each) leave the WAL near SQLite's auto-checkpoint size (1,000 pages).
// Before the patch each write's read was still open on another connection when the write committed,
// so no checkpoint ever completed and the WAL held every frame (~6,000 pages, ~24 MiB here).
func TestAgoraWALRestartsUnderUpdates(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1), "v", int32(0)), agoraDoc("_id", int32(2), "v", int32(0)))

	const writes = 3000

	for i := 0; i < writes/2; i++ {
		_, modified := agoraUpdate(t, h, dbName, cName,
			agoraDoc("q", agoraDoc("_id", int32(1)), "u", agoraDoc("$inc", agoraDoc("v", int32(1)))),
		)
		require.Equal(t, int32(1), modified)

		res := agoraFindAndModify(t, h, dbName, cName,
			"query", agoraDoc("_id", int32(2)), "update", agoraDoc("$inc", agoraDoc("v", int32(1))), "new", true,
		)
		require.Equal(t, int32(1), res.modified)
	}

	docs := agoraAll(t, h, dbName, cName)
	require.Len(t, docs, 2)

	for _, doc := range docs {
		v, err := doc.Get("v")
		require.NoError(t, err)
		assert.Equal(t, int32(writes/2), v)
	}

	wal := filepath.Join(testutil.DirectoryName(t), dbName+".sqlite-wal")
	st, err := os.Stat(wal)
	require.NoError(t, err)

	// 1,000 pages of 4 KiB with their 24-byte frame headers, and room for the writes of one checkpoint.
	assert.Less(t, st.Size(), int64(1500*(4096+24)), "the WAL never restarted: %d bytes", st.Size())
}
