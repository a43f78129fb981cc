// Tests of Agora's reader connections (agora_reader.go, patch 0011).

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sqlite3 "modernc.org/sqlite/lib"
)

// agoraReaderDB opens a file database with a writer and n readers, and a table t (id, doc).
func agoraReaderDB(t *testing.T, n int) *DB {
	t.Helper()

	db, _ := agoraTestDB(t)
	db.agora.readers = newAgoraReaders(db.agora.uri, n)

	_, err := db.ExecContext(context.Background(), `CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT)`)
	require.NoError(t, err)

	return db
}

// agoraRead runs query on the readers and returns its rows (id, doc) as strings.
func agoraRead(t *testing.T, db *DB, query string, args ...any) []string {
	t.Helper()

	rows, err := db.AgoraQueryContext(context.Background(), query, args...)
	require.NoError(t, err)

	defer rows.Close()

	var res []string

	for rows.Next() {
		var id int64
		var doc sql.RawBytes

		require.NoError(t, rows.Scan(&id, &doc))
		res = append(res, fmt.Sprintf("%d:%s", id, doc))
	}

	require.NoError(t, rows.Err())

	return res
}

// agoraIdle returns the number of idle readers.
func agoraIdle(db *DB) int {
	r := db.agora.readers

	r.mu.Lock()
	defer r.mu.Unlock()

	return len(r.idle)
}

func TestAgoraReaderKeepsStatements(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 1)

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'a'), (2, 'b'), (3, 'c')`)
	require.NoError(t, err)

	q := `SELECT id, doc FROM t WHERE id >= ? ORDER BY id`

	for i := 1; i <= 10; i++ {
		assert.Equal(t, []string{"2:b", "3:c"}, agoraRead(t, db, q, int64(2)))
	}

	st := db.AgoraReaderStats()
	assert.Equal(t, AgoraReaderStats{Hits: 9, Prepared: 1, Opened: 1}, st)

	rows, err := db.AgoraQueryContext(ctx, q, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(1), db.AgoraReaderStats().Busy)
	require.NoError(t, rows.Close())
	assert.Equal(t, int64(0), db.AgoraReaderStats().Busy)
	assert.Equal(t, 1, agoraIdle(db))

	// A text with a comment is not kept; it runs, and runs again prepared afresh.
	for i := 0; i < 2; i++ {
		assert.Equal(t, []string{"1:a"}, agoraRead(t, db, `SELECT /* x */ id, doc FROM t WHERE id = ?`, 1))
	}

	st = db.AgoraReaderStats()
	assert.Equal(t, int64(3), st.Prepared)
	assert.Equal(t, int64(10), st.Hits)
	assert.Equal(t, 1, db.agora.readers.idle[0].lru.Len())
}

func TestAgoraReaderEviction(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 1)

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'a')`)
	require.NoError(t, err)

	query := func(i int) string { return fmt.Sprintf(`SELECT id, doc FROM t WHERE id = ? AND %d = %d`, i, i) }

	for i := 0; i < agoraReaderStatements+10; i++ {
		assert.Equal(t, []string{"1:a"}, agoraRead(t, db, query(i), 1))

		// The first text, used again and again, stays.
		assert.Equal(t, []string{"1:a"}, agoraRead(t, db, query(0), 1))
	}

	st := db.AgoraReaderStats()
	assert.Equal(t, int64(agoraReaderStatements+10), st.Prepared)
	assert.Equal(t, int64(10), st.Evicted)
	assert.Equal(t, int64(agoraReaderStatements+10), st.Hits)

	rd := db.agora.readers.idle[0]
	assert.Equal(t, agoraReaderStatements, rd.lru.Len())
	assert.Len(t, rd.stmts, agoraReaderStatements)

	// The least recently used went first.
	assert.NotContains(t, rd.stmts, query(1))
	assert.Contains(t, rd.stmts, query(11))
}

func TestAgoraReaderSchemaChange(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 1)

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'a'), (2, 'b')`)
	require.NoError(t, err)

	q := `SELECT id, doc FROM t WHERE doc = ?`

	assert.Equal(t, []string{"2:b"}, agoraRead(t, db, q, "b"))
	assert.Equal(t, [2]int32{0, 1}, agoraStmtStatus(db, q))

	// An index created on a pool connection: the kept statement is re-prepared and uses it.
	_, err = db.ExecContext(ctx, `CREATE INDEX t_doc ON t (doc)`)
	require.NoError(t, err)

	assert.Equal(t, []string{"2:b"}, agoraRead(t, db, q, "b"))
	assert.Equal(t, [2]int32{1, 0}, agoraStmtStatus(db, q))

	// Dropped again.
	_, err = db.ExecContext(ctx, `DROP INDEX t_doc`)
	require.NoError(t, err)

	assert.Equal(t, []string{"2:b"}, agoraRead(t, db, q, "b"))
	assert.Equal(t, [2]int32{2, 1}, agoraStmtStatus(db, q))

	// EXPLAIN is answered at prepare time, without a look at the schema: never kept.
	assert.Contains(t, agoraPlanText(t, db, `EXPLAIN QUERY PLAN `+q), "SCAN t")
	assert.Contains(t, agoraPlanText(t, db, `EXPLAIN `+q), "Column")

	// (The connection's schema is read again by the next statement that reads the database.)
	_, err = db.ExecContext(ctx, `CREATE INDEX t_doc ON t (doc)`)
	require.NoError(t, err)
	assert.Equal(t, []string{"2:b"}, agoraRead(t, db, q, "b"))
	assert.Contains(t, agoraPlanText(t, db, `EXPLAIN QUERY PLAN `+q), "INDEX t_doc")
	assert.NotContains(t, db.agora.readers.idle[0].stmts, `EXPLAIN QUERY PLAN `+q)

	// The table dropped and created again with other rows and columns, on the pool.
	_, err = db.ExecContext(ctx, `DROP TABLE t`)
	require.NoError(t, err)

	rows, err := db.AgoraQueryContext(ctx, q, "b")
	if err == nil {
		assert.False(t, rows.Next())
		err = rows.Err()
		require.NoError(t, rows.Close())
	}

	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such table: t")

	_, err = db.ExecContext(ctx, `CREATE TABLE t (extra TEXT, doc TEXT, id INTEGER PRIMARY KEY)`)
	require.NoError(t, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (extra, doc, id) VALUES ('x', 'b', 7)`)
	require.NoError(t, err)

	assert.Equal(t, []string{"7:b"}, agoraRead(t, db, q, "b"))

	// The same on the writer connection, and a kept SELECT * whose columns change.
	star := `SELECT * FROM t WHERE id = ?`

	cols := func() []string {
		rows, err := db.AgoraQueryContext(ctx, star, 7)
		require.NoError(t, err)

		defer rows.Close()

		require.True(t, rows.Next())

		c, err := rows.Columns()
		require.NoError(t, err)

		return c
	}

	assert.Equal(t, []string{"extra", "doc", "id"}, cols())

	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		if _, err := tx.ExecOnce(`ALTER TABLE t ADD COLUMN more TEXT`); err != nil {
			return err
		}

		_, err := tx.ExecOnce(`CREATE INDEX t_extra ON t (extra)`)

		return err
	})
	require.NoError(t, err)

	assert.Equal(t, []string{"extra", "doc", "id", "more"}, cols())
	assert.Equal(t, []string{"7:b"}, agoraRead(t, db, q, "b"))
	assert.Equal(t, []string{"7:b"}, agoraRead(t, db, `SELECT id, doc FROM t WHERE extra = ?`, "x"))
	assert.Equal(t, [2]int32{0, 0}, agoraStmtStatus(db, `SELECT id, doc FROM t WHERE extra = ?`))
}

// agoraStmtStatus returns how often the kept statement of query (on the only reader) was
// re-prepared, and its full-scan steps since the last call.
func agoraStmtStatus(db *DB, query string) [2]int32 {
	rd := db.agora.readers.idle[0]
	s := rd.stmts[query].Value.(*agoraStmt).s

	return [2]int32{
		sqlite3.Xsqlite3_stmt_status(rd.tls, s, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0),
		sqlite3.Xsqlite3_stmt_status(rd.tls, s, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, 1),
	}
}

// agoraPlanText returns the text of an EXPLAIN (QUERY PLAN) read on a reader.
func agoraPlanText(t *testing.T, db *DB, query string) string {
	t.Helper()

	rows, err := db.AgoraQueryContext(context.Background(), query, "b")
	require.NoError(t, err)

	defer rows.Close()

	var res string

	for rows.Next() {
		cols, err := rows.Columns()
		require.NoError(t, err)

		dest := make([]any, len(cols))
		texts := make([]sql.RawBytes, len(cols))

		for i := range dest {
			dest[i] = &texts[i]
		}

		require.NoError(t, rows.Scan(dest...))

		for _, v := range texts {
			res += string(v) + " "
		}

		res += "\n"
	}

	require.NoError(t, rows.Err())

	return res
}

func TestAgoraReaderSeesCommittedWrites(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 2)

	q := `SELECT id, doc FROM t WHERE id = ?`

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'first')`)
	require.NoError(t, err)

	for i := 1; i <= 30; i++ {
		err := db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
			if _, err := tx.Exec(`INSERT INTO t (id, doc) VALUES (?, 'w')`, fmt.Sprint(i+1)); err != nil {
				return err
			}

			_, err := tx.Exec(`UPDATE t SET doc = ? WHERE id = 1`, fmt.Sprintf("v%d", i))

			return err
		})
		require.NoError(t, err)

		// Read at once after the commit, on a reader with its statement kept.
		assert.Equal(t, []string{fmt.Sprintf("1:v%d", i)}, agoraRead(t, db, q, 1))
		assert.Equal(t, []string{fmt.Sprintf("%d:w", i+1)}, agoraRead(t, db, q, i+1))
	}

	// A write of the pool too.
	_, err = db.ExecContext(ctx, `UPDATE t SET doc = 'pool' WHERE id = 1`)
	require.NoError(t, err)
	assert.Equal(t, []string{"1:pool"}, agoraRead(t, db, q, 1))

	// A reader in the middle of its rows keeps its snapshot; the next query sees the new write.
	rows, err := db.AgoraQueryContext(ctx, `SELECT id, doc FROM t ORDER BY id`)
	require.NoError(t, err)
	require.True(t, rows.Next())

	err = db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
		_, err := tx.Exec(`INSERT INTO t (id, doc) VALUES (100, 'late')`)
		return err
	})
	require.NoError(t, err)

	n := 1
	for rows.Next() {
		n++
	}

	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	assert.Equal(t, 31, n)
	assert.Equal(t, []string{"100:late"}, agoraRead(t, db, q, 100))
}

func TestAgoraReaderConcurrent(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 3)

	for i := 0; i < 200; i++ {
		_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (?, ?)`, i, fmt.Sprintf("d%d", i))
		require.NoError(t, err)
	}

	var wg sync.WaitGroup

	for g := 0; g < 12; g++ {
		wg.Add(1)

		go func() {
			defer wg.Done()

			for i := 0; i < 50; i++ {
				from := (g*7 + i) % 190
				got := agoraRead(t, db, `SELECT id, doc FROM t WHERE id >= ? AND id < ? ORDER BY id`, from, from+10)

				want := make([]string, 10)
				for j := range want {
					want[j] = fmt.Sprintf("%d:d%d", from+j, from+j)
				}

				assert.Equal(t, want, got)

				if g%4 == 0 {
					// Writers meanwhile, on the writer connection.
					err := db.AgoraWrite(ctx, func(tx *AgoraWriteTx) error {
						_, err := tx.Exec(`INSERT OR REPLACE INTO t (id, doc) VALUES (?, ?)`,
							fmt.Sprint(1000+g*100+i), "x")
						return err
					})
					assert.NoError(t, err)
				}
			}
		}()
	}

	wg.Wait()

	st := db.AgoraReaderStats()
	assert.Equal(t, int64(12*50), st.Hits+st.Prepared+st.Pool)
	assert.LessOrEqual(t, st.Opened, int64(3))
	assert.LessOrEqual(t, st.Prepared, int64(3))
	assert.Equal(t, int(st.Opened), agoraIdle(db))
	t.Logf("%+v", st)
}

func TestAgoraReaderClosedEarly(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 1)

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'a'), (2, 'b'), (3, 'c')`)
	require.NoError(t, err)

	q := `SELECT id, doc FROM t ORDER BY id`

	rows, err := db.AgoraQueryContext(ctx, q)
	require.NoError(t, err)
	require.True(t, rows.Next())
	assert.Equal(t, 0, agoraIdle(db))

	// The only reader is busy: another query runs on the pool.
	assert.Equal(t, []string{"1:a", "2:b", "3:c"}, agoraRead(t, db, q))
	assert.Equal(t, int64(1), db.AgoraReaderStats().Pool)

	require.NoError(t, rows.Close())
	assert.False(t, rows.Next())
	require.NoError(t, rows.Err())

	// Given back with its statement reset (not busy, no read transaction left open).
	require.Equal(t, 1, agoraIdle(db))

	rd := db.agora.readers.idle[0]
	st := rd.stmts[q].Value.(*agoraStmt)
	assert.Equal(t, int32(0), sqlite3.Xsqlite3_stmt_busy(rd.tls, st.s))
	assert.Equal(t, int32(1), sqlite3.Xsqlite3_get_autocommit(rd.tls, rd.db))

	// The kept statement starts from the first row again.
	assert.Equal(t, []string{"1:a", "2:b", "3:c"}, agoraRead(t, db, q))
	assert.Equal(t, int64(1), db.AgoraReaderStats().Hits)

	// Rows read to their end give the reader back before Close.
	rows, err = db.AgoraQueryContext(ctx, q)
	require.NoError(t, err)

	for rows.Next() {
	}

	assert.Equal(t, 1, agoraIdle(db))
	require.NoError(t, rows.Close())
	require.NoError(t, rows.Close())
	assert.Equal(t, 1, agoraIdle(db))

	// Scan and Columns after the end fail as database/sql's do.
	assert.Error(t, rows.Scan(new(int64), new(sql.RawBytes)))
	_, err = rows.Columns()
	assert.Error(t, err)
}

func TestAgoraReaderCancel(t *testing.T) {
	t.Parallel()

	db := agoraReaderDB(t, 1)

	// Cancelled before: the error of database/sql's QueryContext.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := db.AgoraQueryContext(ctx, `SELECT id, doc FROM t`)
	assert.ErrorIs(t, err, context.Canceled)

	// Cancelled during a long step: interrupted, the context's error, the reader not reused.
	long := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i, 'x' FROM n WHERE i < 0`

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)

	rows, err := db.AgoraQueryContext(ctx, long)
	require.NoError(t, err)

	start := time.Now()
	assert.False(t, rows.Next())
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.ErrorIs(t, rows.Err(), context.Canceled)
	require.NoError(t, rows.Close())

	st := db.AgoraReaderStats()
	assert.Equal(t, int64(1), st.Dropped)
	assert.Equal(t, 0, agoraIdle(db))

	// Cancelled between rows: the rows end at Close as usual.
	_, err = db.ExecContext(context.Background(), `INSERT INTO t (id, doc) VALUES (1, 'a'), (2, 'b')`)
	require.NoError(t, err)

	ctx, cancel = context.WithCancel(context.Background())
	rows, err = db.AgoraQueryContext(ctx, `SELECT id, doc FROM t ORDER BY id`)
	require.NoError(t, err)
	require.True(t, rows.Next())
	cancel()
	require.NoError(t, rows.Close())

	// A new reader serves the next query.
	assert.Equal(t, []string{"1:a", "2:b"}, agoraRead(t, db, `SELECT id, doc FROM t ORDER BY id`))
	assert.Equal(t, int64(3), db.AgoraReaderStats().Opened)
}

func TestAgoraReaderBindsAsTheDriver(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 1)

	q := `SELECT typeof(?1), quote(?1), ?1 IS NULL, length(CAST(?1 AS BLOB))`

	// Every type the backend binds: the pushdown's int64, float64, strings (ObjectIds as hex), bools
	// as int64, dates as int64 milliseconds, LIMIT as int64; and nil, int, int32, bool.
	values := []any{
		nil, int64(0), int64(-1 << 53), int64(1 << 62), 1, int32(-7), 0.5, -2.5e300, 1e21, 3.0,
		"", "a", "é", "a\x00b", `q"uote'`, "0123456789abcdef01234567", true, false,
	}

	for _, v := range values {
		var want [4]sql.NullString

		require.NoError(t, db.QueryRowContext(ctx, q, v).Scan(&want[0], &want[1], &want[2], &want[3]))

		rows, err := db.AgoraQueryContext(ctx, q, v)
		require.NoError(t, err)
		require.True(t, rows.Next())

		var got [4]sql.RawBytes
		require.NoError(t, rows.Scan(&got[0], &got[1], &got[2], &got[3]))

		for i := range got {
			assert.Equal(t, want[i].String, string(got[i]), "%T %v column %d", v, v, i)
			assert.Equal(t, want[i].Valid, got[i] != nil, "%T %v column %d", v, v, i)
		}

		assert.False(t, rows.Next())
		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())
	}

	st := db.AgoraReaderStats()
	assert.Equal(t, int64(1), st.Prepared)
	assert.Equal(t, int64(len(values)-1), st.Hits)

	// Columns scanned into each destination type.
	rows, err := db.AgoraQueryContext(ctx, `SELECT 42, 'text', NULL, x'00ff'`)
	require.NoError(t, err)
	require.True(t, rows.Next())

	var n int64
	var s string
	var null, blob []byte

	require.NoError(t, rows.Scan(&n, &s, &null, &blob))
	assert.Equal(t, int64(42), n)
	assert.Equal(t, "text", s)
	assert.Nil(t, null)
	assert.Equal(t, []byte{0, 0xff}, blob)
	require.NoError(t, rows.Close())

	// Another type goes to the pool.
	var b []byte
	require.NoError(t, db.QueryRowContext(ctx, `SELECT 1`).Scan(&b))

	rows, err = db.AgoraQueryContext(ctx, `SELECT quote(?)`, []byte{1, 2})
	require.NoError(t, err)
	require.True(t, rows.Next())
	require.NoError(t, rows.Scan(&s))
	assert.Equal(t, "X'0102'", s)
	require.NoError(t, rows.Close())
	assert.Equal(t, int64(2), db.AgoraReaderStats().Prepared)

	// Errors read as the driver's.
	_, err = db.AgoraQueryContext(ctx, `SELECT nothing FROM t`)
	require.Error(t, err)

	_, poolErr := db.QueryContext(ctx, `SELECT nothing FROM t`)
	require.Error(t, poolErr)
	assert.Equal(t, poolErr.Error(), err.Error())

	var ae *AgoraError
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, sqlite3.SQLITE_ERROR, ae.Code())

	_, err = db.AgoraQueryContext(ctx, `SELECT ?`, 1, 2)
	assert.Error(t, err)
}

func TestAgoraReaderClose(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	db := agoraReaderDB(t, 2)

	_, err := db.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (1, 'a'), (2, 'b')`)
	require.NoError(t, err)

	assert.Equal(t, []string{"1:a", "2:b"}, agoraRead(t, db, `SELECT id, doc FROM t ORDER BY id`))

	// Rows open while the DB closes: their reader closes when they do.
	rows, err := db.AgoraQueryContext(ctx, `SELECT id, doc FROM t ORDER BY id`)
	require.NoError(t, err)
	require.True(t, rows.Next())

	busy, err := db.AgoraQueryContext(ctx, `SELECT id, doc FROM t ORDER BY id DESC`)
	require.NoError(t, err)
	require.True(t, busy.Next())

	require.NoError(t, db.Close())

	assert.True(t, rows.Next())
	assert.False(t, rows.Next())
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.NoError(t, busy.Close())

	r := db.agora.readers
	assert.Equal(t, 0, r.open)
	assert.Empty(t, r.idle)

	_, err = db.AgoraQueryContext(ctx, `SELECT 1`)
	assert.Error(t, err)
}

func TestAgoraReadersFromEnv(t *testing.T) {
	t.Parallel()

	assert.Equal(t, 4, agoraReadersFromEnv(""))
	assert.Equal(t, 0, agoraReadersFromEnv("0"))
	assert.Equal(t, 8, agoraReadersFromEnv("8"))
	assert.Equal(t, 4, agoraReadersFromEnv("many"))
}
