// Tests of the handler's side of patch 0016 (agora_journal.go): which commands mark the journal,
// which sync it before answering, and what a failed sync does.

package handler

import (
	"context"
	"errors"
	"testing"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func agoraMsg(t *testing.T, pairs ...any) *wire.OpMsg {
	t.Helper()

	msg, err := wire.NewOpMsg(wirebson.MustDocument(pairs...))
	require.NoError(t, err)

	return msg
}

func TestAgoraJournalOf(t *testing.T) {
	t.Parallel()

	for name, tc := range map[string]struct {
		wc   any // nil: no writeConcern field
		want bool
	}{
		"absent":        {nil, false},
		"w only":        {wirebson.MustDocument("w", int32(1)), false},
		"j true":        {wirebson.MustDocument("w", int32(1), "j", true), true},
		"j false":       {wirebson.MustDocument("j", false), false},
		"j 1":           {wirebson.MustDocument("j", int32(1)), true},
		"j 0":           {wirebson.MustDocument("j", int32(0)), false},
		"j 1.0":         {wirebson.MustDocument("j", float64(1)), true},
		"j long":        {wirebson.MustDocument("j", int64(2)), true},
		"j string":      {wirebson.MustDocument("j", "true"), false},
		"fsync true":    {wirebson.MustDocument("fsync", true), true},
		"fsync false":   {wirebson.MustDocument("fsync", false, "j", false), false},
		"not document":  {"majority", false},
		"empty":         {wirebson.MustDocument(), false},
		"j null":        {wirebson.MustDocument("j", wirebson.Null), false},
		"wtimeout only": {wirebson.MustDocument("wtimeout", int32(100)), false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			pairs := []any{"insert", "c", "$db", "d"}
			if tc.wc != nil {
				pairs = append(pairs, "writeConcern", tc.wc)
			}

			raw, err := wirebson.MustDocument(pairs...).Encode()
			require.NoError(t, err)
			db, requested := agoraJournalOf(raw)
			assert.Equal(t, "d", db)
			assert.Equal(t, tc.want, requested)
		})
	}

	for _, raw := range []wirebson.RawDocument{nil, {1, 2, 3}} {
		db, requested := agoraJournalOf(raw)
		assert.Equal(t, "", db)
		assert.False(t, requested)
	}

	raw, err := wirebson.MustDocument("insert", "c", "$db", int32(1)).Encode()
	require.NoError(t, err)
	db, _ := agoraJournalOf(raw)
	assert.Equal(t, "", db, "a $db that is not a string names no database: every journal")
}

// agoraRecorder records which of mark and sync the wrapper called, and for which database.
type agoraRecorder struct {
	marks, syncs int
	dbs          []string
	syncErr      error
}

func (r *agoraRecorder) wrapCommand(
	command string, res *wire.OpMsg, err error,
) func(context.Context, *wire.OpMsg) (*wire.OpMsg, error) {
	return agoraJournaled(
		command,
		func(context.Context, *wire.OpMsg) (*wire.OpMsg, error) { return res, err },
		func(db string) { r.marks++; r.dbs = append(r.dbs, db) },
		func(db string) error { r.syncs++; r.dbs = append(r.dbs, db); return r.syncErr },
	)
}

func (r *agoraRecorder) wrap(res *wire.OpMsg, err error) func(context.Context, *wire.OpMsg) (*wire.OpMsg, error) {
	return r.wrapCommand("insert", res, err)
}

func TestAgoraJournaled(t *testing.T) {
	t.Parallel()

	ok := agoraMsg(t, "ok", float64(1))
	plain := agoraMsg(t, "insert", "c", "$db", "d")
	journaled := agoraMsg(t, "insert", "c", "$db", "d", "writeConcern", wirebson.MustDocument("j", true))
	failed := errors.New("the command failed")

	t.Run("MarkOnly", func(t *testing.T) {
		t.Parallel()

		var r agoraRecorder
		res, err := r.wrap(ok, nil)(context.Background(), plain)
		require.NoError(t, err)
		assert.Same(t, ok, res)
		assert.Equal(t, agoraRecorder{marks: 1, dbs: []string{"d"}}, r)
	})

	t.Run("SyncBeforeAnswer", func(t *testing.T) {
		t.Parallel()

		var r agoraRecorder
		res, err := r.wrap(ok, nil)(context.Background(), journaled)
		require.NoError(t, err)
		assert.Same(t, ok, res)
		assert.Equal(t, agoraRecorder{syncs: 1, dbs: []string{"d"}}, r)
	})

	t.Run("RenameMarksEveryJournal", func(t *testing.T) {
		t.Parallel()

		var r agoraRecorder
		rename := agoraMsg(t, "renameCollection", "d.a", "to", "e.b", "$db", "admin")
		_, err := r.wrapCommand("renameCollection", ok, nil)(context.Background(), rename)
		require.NoError(t, err)
		assert.Equal(t, agoraRecorder{marks: 1, dbs: []string{""}}, r)
	})

	t.Run("FailedCommandStillMarksOrSyncs", func(t *testing.T) {
		t.Parallel()

		var r agoraRecorder
		_, err := r.wrap(nil, failed)(context.Background(), plain)
		assert.Same(t, failed, err)
		_, err = r.wrap(nil, failed)(context.Background(), journaled)
		assert.Same(t, failed, err)
		assert.Equal(t, agoraRecorder{marks: 1, syncs: 1, dbs: []string{"d", "d"}}, r)
	})

	t.Run("FailedSyncFailsTheCommand", func(t *testing.T) {
		t.Parallel()

		r := agoraRecorder{syncErr: errors.New("EIO")}
		res, err := r.wrap(ok, nil)(context.Background(), journaled)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "EIO")
		assert.Nil(t, res)

		// The command's own error is the one reported.
		_, err = r.wrap(nil, failed)(context.Background(), journaled)
		assert.Same(t, failed, err)
	})
}

// TestAgoraJournalCommands: on a real SQLite backend, the write commands are wrapped and the reads
// are not; an insert asking for j: true has the WAL synced before its answer.
func TestAgoraJournalCommands(t *testing.T) {
	t.Parallel()

	h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1)))

	for _, name := range agoraWriteCommands {
		assert.NotNil(t, h.Commands()[name], name)
	}

	before := fsql.AgoraJournalSyncs()

	res, err := h.Commands()["insert"].Handler(testutil.Ctx(t), agoraMsg(t,
		"insert", cName,
		"documents", wirebson.MustArray(wirebson.MustDocument("_id", int32(2))),
		"writeConcern", wirebson.MustDocument("j", true),
		"$db", dbName,
	))
	require.NoError(t, err)

	doc, err := res.RawSection0().Decode()
	require.NoError(t, err)
	assert.Equal(t, int32(1), doc.Get("n"))
	assert.GreaterOrEqual(t, fsql.AgoraJournalSyncs()-before, int64(1), "synced before the answer")
	assert.Len(t, agoraAll(t, h, dbName, cName), 2)
}
