// Agora's writer connection with prepared statements (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0009).
//
// Why: modernc.org/sqlite (v1.32, and still in v1.40) prepares every statement from its text on
// every Exec, even through database/sql's prepared statements, and finalizes it after. For a
// collection with many indexes that compilation is most of an update's cost: the UPDATE of one
// topic (16 sortable indexes of patch 0007, each recomputed for the old and the new row) took
// ~1.2 ms of CPU, ~0.7 ms of it compiling; with the statement kept, ~0.4 ms.
//
// What: a database opened from a file gets one more SQLite connection of its own, opened on first
// use with the same URI and pragmas as the pool's connections, on which AgoraWrite runs a write
// transaction whose statements (Exec) are prepared once and reused (sqlite3_reset between runs):
// the backend's updates (agora_update.go) and its inserts of plain collections.
// One transaction at a time (a mutex; SQLite allows one writer at a time anyway). SQLite re-prepares
// a kept statement by itself when the schema changed (sqlite3_prepare_v3), so indexes created or
// dropped meanwhile are maintained. A statement that fails is finalized and prepared afresh next
// time. The connection and its statements are closed with the DB (DB.Close, before the pool removes
// a dropped database's file). In-memory databases (one database per connection) never get one.
//
// Why the answers do not change: it is an ordinary SQLite connection to the same file, with the same
// pragmas (busy timeout, WAL, synchronous as the pool's), each transaction committed before
// AgoraWrite returns, so every commit is as durable as one on the pool's connections (the WAL they
// share is synced as agora_journal.go says) and visible to every read that starts after it; only the
// compilation is saved. Errors read as the driver's ("<errstr>: <errmsg> (<code>)").

package fsql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// agoraMaxStatements bounds the kept statements (one per collection and statement text).
const agoraMaxStatements = 128

// agoraConn is an SQLite connection of Agora's own, called through the C API (the writer's and
// the readers' of agora_reader.go).
type agoraConn struct {
	uri string
	tls *libc.TLS
	db  uintptr
}

// agoraWriter is a DB's writer connection.
type agoraWriter struct {
	agoraConn

	mu     sync.Mutex
	stmts  map[string]uintptr
	closed bool

	readers *agoraReaders // the DB's reader connections (agora_reader.go)

	journal *agoraJournal // the DB's WAL, synced as MongoDB syncs its journal (agora_journal.go)
}

// AgoraError is an SQLite error of the writer connection.
type AgoraError struct {
	msg  string
	code int
}

// Error implements error.
func (e *AgoraError) Error() string { return e.msg }

// Code returns the SQLite (extended) result code.
func (e *AgoraError) Code() int { return e.code }

// AgoraWriteTx runs the statements of one AgoraWrite transaction.
type AgoraWriteTx struct {
	w *agoraWriter
}

// AgoraUseWriter gives db a writer connection to the database at uri (the pool's URI of a file
// database, with its _pragma parameters), opened on first use, and reader connections
// (agora_reader.go), opened as needed. Called once, before db is used.
func (db *DB) AgoraUseWriter(uri string) {
	db.agora = &agoraWriter{
		agoraConn: agoraConn{uri: uri},
		stmts:     map[string]uintptr{},
		readers:   newAgoraReaders(uri, agoraReaderCount),
		journal:   agoraRegisterJournal(uri),
	}
}

// AgoraHasWriter reports whether db has a writer connection.
func (db *DB) AgoraHasWriter() bool {
	return db.agora != nil
}

// AgoraWrite runs f in a write transaction on db's writer connection and commits it; on an error
// of f (or of the commit) the transaction is rolled back. db must have a writer (AgoraHasWriter).
func (db *DB) AgoraWrite(ctx context.Context, f func(tx *AgoraWriteTx) error) (err error) {
	w := db.agora

	if err = ctx.Err(); err != nil {
		return err
	}

	w.mu.Lock()
	defer w.mu.Unlock()

	if w.closed {
		return errors.New("fsql: the database is closed")
	}

	if w.db == 0 {
		if err = w.open(); err != nil {
			return err
		}
	}

	tx := &AgoraWriteTx{w: w}

	if _, err = tx.Exec("BEGIN"); err != nil {
		return err
	}

	if err = f(tx); err == nil {
		if _, err = tx.Exec("COMMIT"); err == nil {
			return nil
		}
	}

	// Rolled back by hand unless SQLite already did (sqlite3_get_autocommit is then true).
	if sqlite3.Xsqlite3_get_autocommit(w.tls, w.db) == 0 {
		_, _ = tx.Exec("ROLLBACK")
	}

	return err
}

// Exec runs query (one statement) with args bound as text, with a statement prepared once for
// that text, and returns the number of rows it changed.
func (tx *AgoraWriteTx) Exec(query string, args ...string) (int64, error) {
	w := tx.w

	s, err := w.stmt(query)
	if err != nil {
		return 0, err
	}

	for i, a := range args {
		z, err := libc.CString(a)
		if err != nil {
			w.drop(query)
			return 0, err
		}

		// SQLITE_TRANSIENT (-1): SQLite copies the text, so it is freed at once.
		rc := sqlite3.Xsqlite3_bind_text(w.tls, s, int32(i+1), z, int32(len(a)), ^uintptr(0))
		libc.Xfree(w.tls, z)

		if rc != sqlite3.SQLITE_OK {
			err := w.err(rc)
			w.drop(query)

			return 0, err
		}
	}

	rc := sqlite3.Xsqlite3_step(w.tls, s)
	if rc != sqlite3.SQLITE_DONE && rc != sqlite3.SQLITE_ROW {
		err := w.err(rc)
		w.drop(query)

		return 0, err
	}

	sqlite3.Xsqlite3_reset(w.tls, s)
	sqlite3.Xsqlite3_clear_bindings(w.tls, s)

	return int64(sqlite3.Xsqlite3_changes(w.tls, w.db)), nil
}

// open opens the connection as modernc.org/sqlite opens the pool's, and applies the URI's pragmas.
func (c *agoraConn) open() error {
	c.tls = libc.NewTLS()

	name, err := libc.CString(c.uri)
	if err != nil {
		return err
	}

	out, read := c.agoraOut()

	flags := int32(sqlite3.SQLITE_OPEN_READWRITE | sqlite3.SQLITE_OPEN_CREATE |
		sqlite3.SQLITE_OPEN_FULLMUTEX | sqlite3.SQLITE_OPEN_URI)

	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, out, flags, 0)
	c.db = read()
	// Freed here, not deferred: a failed open closes c.tls below, and a deferred free would use it after.
	libc.Xfree(c.tls, name)

	if rc != sqlite3.SQLITE_OK {
		err = c.err(rc)
		c.closeConn()

		return err
	}

	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)

	var query string
	if i := strings.IndexByte(c.uri, '?'); i >= 0 {
		query = c.uri[i+1:]
	}

	values, err := url.ParseQuery(query)
	if err != nil {
		c.closeConn()
		return err
	}

	for _, v := range values["_pragma"] {
		// Not kept: each pragma runs once.
		if err = c.once("PRAGMA " + v); err != nil {
			c.closeConn()
			return err
		}
	}

	return nil
}

// once prepares, runs to its end and finalizes query (no arguments).
func (c *agoraConn) once(query string) error {
	z, err := libc.CString(query)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, z)

	out, read := c.agoraOut()

	rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, z, -1, out, 0)
	s := read()

	if rc == sqlite3.SQLITE_OK && s != 0 {
		for rc = sqlite3.Xsqlite3_step(c.tls, s); rc == sqlite3.SQLITE_ROW; {
			rc = sqlite3.Xsqlite3_step(c.tls, s)
		}
	}

	if rc != sqlite3.SQLITE_OK && rc != sqlite3.SQLITE_DONE {
		err = c.err(rc)
	}

	if s != 0 {
		sqlite3.Xsqlite3_finalize(c.tls, s)
	}

	return err
}

// ExecOnce runs query as Exec does, without keeping its statement (a statement text that is
// unlikely to come again, such as a multi-row INSERT of a bulk write).
func (tx *AgoraWriteTx) ExecOnce(query string, args ...string) (int64, error) {
	if _, kept := tx.w.stmts[query]; kept {
		return tx.Exec(query, args...)
	}

	n, err := tx.Exec(query, args...)
	tx.w.drop(query)

	return n, err
}

// stmt returns the kept statement of query, prepared now if there is none.
func (w *agoraWriter) stmt(query string) (uintptr, error) {
	if s, ok := w.stmts[query]; ok {
		return s, nil
	}

	if len(w.stmts) >= agoraMaxStatements {
		for q := range w.stmts {
			w.drop(q)
		}
	}

	z, err := libc.CString(query)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(w.tls, z)

	out, read := w.agoraOut()

	rc := sqlite3.Xsqlite3_prepare_v3(w.tls, w.db, z, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, out, 0)
	s := read()

	if rc != sqlite3.SQLITE_OK {
		if s != 0 {
			sqlite3.Xsqlite3_finalize(w.tls, s)
		}

		return 0, w.err(rc)
	}

	if s == 0 {
		return 0, fmt.Errorf("fsql: no statement in %q", query)
	}

	w.stmts[query] = s

	return s, nil
}

// agoraOut returns room in the connection's C memory for SQLite to write a handle to (its
// out-parameters), the address and a function that reads the handle and frees the room.
func (c *agoraConn) agoraOut() (uintptr, func() uintptr) {
	size := int(unsafe.Sizeof(uintptr(0)))
	p := c.tls.Alloc(size)
	*(*uintptr)(unsafe.Add(nil, p)) = 0

	return p, func() uintptr {
		v := *(*uintptr)(unsafe.Add(nil, p))
		c.tls.Free(size)

		return v
	}
}

// drop finalizes the kept statement of query, if any.
func (w *agoraWriter) drop(query string) {
	if s, ok := w.stmts[query]; ok {
		sqlite3.Xsqlite3_finalize(w.tls, s)
		delete(w.stmts, query)
	}
}

// err returns the connection's last error as modernc.org/sqlite words it.
func (c *agoraConn) err(rc int32) error {
	str := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))

	var msg string
	if c.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	}

	suffix := ""
	if rc == sqlite3.SQLITE_BUSY {
		suffix = " (SQLITE_BUSY)"
	}

	if msg == "" || msg == str {
		return &AgoraError{msg: fmt.Sprintf("%s (%v)%s", str, rc, suffix), code: int(rc)}
	}

	return &AgoraError{msg: fmt.Sprintf("%s: %s (%v)%s", str, msg, rc, suffix), code: int(rc)}
}

// close finalizes the statements and closes the connection.
func (w *agoraWriter) close() {
	for q := range w.stmts {
		w.drop(q)
	}

	w.closeConn()
}

// closeConn closes the connection (its statements finalized before).
func (c *agoraConn) closeConn() {
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}

	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
}

// agoraClose closes the writer connection and the readers for good (DB.Close).
func (db *DB) agoraClose() {
	if db.agora == nil {
		return
	}

	db.agora.readers.close()
	agoraUnregisterJournal(db.agora.journal)

	db.agora.mu.Lock()
	defer db.agora.mu.Unlock()

	db.agora.close()
	db.agora.closed = true
}
