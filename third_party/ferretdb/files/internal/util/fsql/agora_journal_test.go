// Tests of Agora's journal commits (agora_journal.go, patch 0016).

package fsql

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgoraWALPath(t *testing.T) {
	t.Parallel()

	assert.Equal(t, "/d/db.sqlite-wal", agoraWALPath("file:/d/db.sqlite?_pragma=journal_mode%28wal%29"))
	assert.Equal(t, "/d/a b.sqlite-wal", agoraWALPath("file:/d/a%20b.sqlite"))
	assert.Equal(t, "/d/x%zz.sqlite-wal", agoraWALPath("file:/d/x%zz.sqlite"), "kept as written when it does not unescape")
}

// TestAgoraJournalSyncs: a database with a writer registers its WAL; a sync after a write fsyncs
// it and takes the mark off; a marked journal is synced by the flusher within a few intervals; a
// closed database leaves the registry.
func TestAgoraJournalSyncs(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, file := agoraTestDB(t)
	j := db.agora.journal

	require.Equal(t, file+"-wal", j.wal)
	require.Equal(t, "test", j.db)

	agoraJournalsMu.Lock()
	_, registered := agoraJournals[j]
	agoraJournalsMu.Unlock()
	require.True(t, registered)

	_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
	require.NoError(t, err)
	require.NoError(t, db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		_, err := tx.Exec(`INSERT INTO t (doc) VALUES (?)`, `{"_id":1}`)
		return err
	}))

	_, err = os.Stat(j.wal)
	require.NoError(t, err, "the WAL exists")

	// Another database's sync neither syncs nor marks this one.
	j.dirty.Store(false)
	require.NoError(t, AgoraSyncJournals("another"))
	AgoraJournalWritten("another")
	assert.False(t, j.dirty.Load())

	before := AgoraJournalSyncs()
	require.NoError(t, AgoraSyncJournals("test"))
	assert.GreaterOrEqual(t, AgoraJournalSyncs()-before, int64(1))
	assert.False(t, j.dirty.Load(), "synced: no mark left")

	// Not marked: a sync of j alone does nothing.
	before = AgoraJournalSyncs()
	require.NoError(t, j.sync())
	assert.Equal(t, before, AgoraJournalSyncs())

	// Marked: the flusher takes it within a few intervals.
	AgoraJournalWritten("test")
	assert.Eventually(t, func() bool { return !j.dirty.Load() }, 50*AgoraJournalInterval, AgoraJournalInterval/10)

	require.NoError(t, db.Close())

	agoraJournalsMu.Lock()
	_, registered = agoraJournals[j]
	agoraJournalsMu.Unlock()
	assert.False(t, registered)
}

// TestAgoraJournalWithoutWAL: a database never written has no WAL, which is nothing to sync; a WAL
// that cannot be opened keeps its mark and reports the error.
func TestAgoraJournalWithoutWAL(t *testing.T) {
	t.Parallel()

	dir := t.TempDir()

	missing := &agoraJournal{wal: filepath.Join(dir, "never.sqlite-wal")}
	missing.dirty.Store(true)
	require.NoError(t, missing.sync())
	assert.False(t, missing.dirty.Load())

	unreadable := &agoraJournal{wal: filepath.Join(dir, "file", "under-a-file-wal")}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o600))
	unreadable.dirty.Store(true)
	require.Error(t, unreadable.sync())
	assert.True(t, unreadable.dirty.Load(), "the mark stays for the next sync")

}
