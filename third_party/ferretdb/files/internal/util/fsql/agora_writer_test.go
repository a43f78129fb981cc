// Tests of Agora's writer connection (agora_writer.go, patch 0009).

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraTestDB opens a file database as FerretDB's pool does, with a writer connection.
func agoraTestDB(t *testing.T) (*DB, string) {
	t.Helper()

	file := filepath.Join(t.TempDir(), "test.sqlite")
	uri := "file:" + file + "?_pragma=busy_timeout%2810000%29&_pragma=journal_mode%28wal%29" +
		"&_pragma=auto_vacuum%28none%29"

	sqlDB, err := sql.Open("sqlite", uri)
	require.NoError(t, err)

	db := WrapDB(sqlDB, "test", testutil.Logger(t))
	db.AgoraUseWriter(uri)

	t.Cleanup(func() { _ = db.Close() })

	return db, file
}

func agoraCount(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()

	var n int
	require.NoError(t, db.QueryRowContext(context.Background(), query, args...).Scan(&n))

	return n
}

func TestAgoraWriterKeepsStatements(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, _ := agoraTestDB(t)

	_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
	require.NoError(t, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (doc) VALUES ('{"_id":1,"n":0}'), ('{"_id":2,"n":0}')`)
	require.NoError(t, err)

	q := `UPDATE t SET doc = ? WHERE doc->'_id' = ?`

	for i := 1; i <= 20; i++ {
		err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
			n, err := tx.Exec(q, fmt.Sprintf(`{"_id":1,"n":%d}`, i), "1")
			assert.Equal(t, int64(1), n)

			return err
		})
		require.NoError(t, err)

		// Committed: a pool connection reads it.
		assert.Equal(t, i, agoraCount(t, db, `SELECT doc->>'n' FROM t WHERE doc->'_id' = '1'`))

		if i == 10 {
			// An index created meanwhile on another connection is maintained by the kept statement.
			_, err = db.ExecContext(ctx, `CREATE INDEX t_n ON t (doc->>'n')`)
			require.NoError(t, err)
		}
	}

	// One statement for all the updates (BEGIN and COMMIT are kept too).
	assert.Contains(t, db.agora.stmts, q)
	assert.Len(t, db.agora.stmts, 3)
	assert.Equal(t, 1, agoraCount(t, db, `SELECT count(*) FROM t INDEXED BY t_n WHERE doc->>'n' = 20`))
	assert.Equal(t, 0, agoraCount(t, db, `SELECT count(*) FROM t INDEXED BY t_n WHERE doc->>'n' = 10`))

	// No row matched: nothing changed, no error.
	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		n, err := tx.Exec(q, `{"_id":3}`, "3")
		assert.Zero(t, n)

		return err
	})
	require.NoError(t, err)
}

func TestAgoraWriterRollsBack(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, _ := agoraTestDB(t)

	_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
	require.NoError(t, err)

	_, err = db.ExecContext(ctx, `CREATE UNIQUE INDEX t_k ON t (doc->>'k')`)
	require.NoError(t, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (doc) VALUES ('{"_id":1,"k":"a"}'), ('{"_id":2,"k":"b"}')`)
	require.NoError(t, err)

	q := `UPDATE t SET doc = ? WHERE doc->'_id' = ?`

	// f fails after a first update: that update is rolled back.
	failure := errors.New("f failed")
	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		_, err := tx.Exec(q, `{"_id":1,"k":"c"}`, "1")
		require.NoError(t, err)

		return failure
	})
	require.ErrorIs(t, err, failure)
	assert.Equal(t, 1, agoraCount(t, db, `SELECT count(*) FROM t WHERE doc->>'k' = 'a'`))

	// A statement fails (a unique index): the transaction is rolled back, the error reads as the driver's.
	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		if _, err := tx.Exec(q, `{"_id":1,"k":"c"}`, "1"); err != nil {
			return err
		}

		_, err := tx.Exec(q, `{"_id":2,"k":"c"}`, "2")

		return err
	})

	var ae *AgoraError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, sqlite3.SQLITE_CONSTRAINT_UNIQUE, ae.Code())
	assert.Equal(t, "constraint failed: UNIQUE constraint failed: index 't_k' (2067)", ae.Error())
	assert.Equal(t, 1, agoraCount(t, db, `SELECT count(*) FROM t WHERE doc->>'k' = 'a'`))
	assert.Equal(t, 0, agoraCount(t, db, `SELECT count(*) FROM t WHERE doc->>'k' = 'c'`))

	// The connection is usable after both.
	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		_, err := tx.Exec(q, `{"_id":2,"k":"d"}`, "2")
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, 1, agoraCount(t, db, `SELECT count(*) FROM t WHERE doc->>'k' = 'd'`))
}

func TestAgoraWriterTableDroppedAndCreated(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, _ := agoraTestDB(t)

	q := `UPDATE t SET doc = ? WHERE doc->'_id' = ?`
	update := func(doc string) error {
		return db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
			_, err := tx.Exec(q, doc, "1")
			return err
		})
	}

	for _, v := range []string{"x", "y"} {
		_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
		require.NoError(t, err)

		_, err = db.ExecContext(ctx, `INSERT INTO t (doc) VALUES ('{"_id":1}')`)
		require.NoError(t, err)

		require.NoError(t, update(`{"_id":1,"v":"`+v+`"}`))
		assert.Equal(t, 1, agoraCount(t, db, `SELECT count(*) FROM t WHERE doc->>'v' = ?`, v))

		_, err = db.ExecContext(ctx, `DROP TABLE t`)
		require.NoError(t, err)

		// No table: an error, not a crash.
		require.Error(t, update(`{"_id":1}`))
	}
}

func TestAgoraWriterConcurrentWriters(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, _ := agoraTestDB(t)

	_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
	require.NoError(t, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (doc) VALUES ('{"_id":1,"n":0}')`)
	require.NoError(t, err)

	// Writers on the writer connection and inserts on pool connections at once: all committed.
	var wg sync.WaitGroup

	for i := range 20 {
		wg.Add(2)

		go func() {
			defer wg.Done()

			err := db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
				_, err := tx.Exec(`UPDATE t SET doc = ? WHERE doc->'_id' = ?`, fmt.Sprintf(`{"_id":1,"n":%d}`, i), "1")
				return err
			})
			assert.NoError(t, err)
		}()

		go func() {
			defer wg.Done()

			_, err := db.ExecContext(ctx, `INSERT INTO t (doc) VALUES (?)`, fmt.Sprintf(`{"_id":%d}`, 100+i))
			assert.NoError(t, err)
		}()
	}

	wg.Wait()

	assert.Equal(t, 21, agoraCount(t, db, `SELECT count(*) FROM t`))
}

func TestAgoraWriterClosed(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db, file := agoraTestDB(t)

	_, err := db.ExecContext(ctx, `CREATE TABLE t (doc TEXT)`)
	require.NoError(t, err)

	require.NoError(t, db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		_, err := tx.Exec(`INSERT INTO t (doc) VALUES (?)`, `{"_id":1}`)
		return err
	}))

	require.NoError(t, db.Close())

	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error { return nil })
	require.Error(t, err)

	// What the writer committed is in the file.
	sqlDB, err := sql.Open("sqlite", "file:"+file)
	require.NoError(t, err)

	defer sqlDB.Close()

	var n int
	require.NoError(t, sqlDB.QueryRow(`SELECT count(*) FROM t`).Scan(&n))
	assert.Equal(t, 1, n)

	_, err = os.Stat(file)
	require.NoError(t, err)
}

func TestAgoraWriterCanceled(t *testing.T) {
	t.Parallel()

	db, _ := agoraTestDB(t)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	called := false
	err := db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error { called = true; return nil })
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, called)
}

func TestAgoraWriterOpenFails(t *testing.T) {
	t.Parallel()

	// A file in a directory that does not exist: sqlite3_open_v2 fails, and the connection's
	// thread state is closed after the name it was given is freed.
	dir := filepath.Join(t.TempDir(), "missing")
	c := agoraConn{uri: "file:" + filepath.Join(dir, "test.sqlite")}
	require.Error(t, c.open())
	assert.Nil(t, c.tls)
	assert.Zero(t, c.db)

	// Opening again works once the directory is there.
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, c.open())
	c.closeConn()
}
