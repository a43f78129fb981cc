// Agora's reader connections with kept statements (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0011).
//
// Why: modernc.org/sqlite compiles every query from its text on every Query, and the queries of
// Agora's sorted and raw reads (patches 0007, 0008) are long: rank and value expressions per sort
// and filter field, which SQLite's parser and planner match against every index of the table.
// Compiling them was ~21 % of FerretDB's CPU under Agora's load benchmark.
//
// What: a DB opened from a file (one with a writer connection, agora_writer.go) also has a few
// reader connections of its own, opened on first use with the pool's URI and pragmas (and
// query_only). AgoraQueryContext runs a query on a free reader with the statement of that query
// text prepared once and kept (an LRU of agoraReaderStatements per reader, finalized when evicted,
// when it fails and when the reader closes); the arguments are bound, the rows are read through
// the ordinary *Rows (rows.go dispatches to agoraRows). A reader serves one query at a time: it is
// taken when the query starts and given back when its rows end or are closed. When every reader
// is busy (open cursors may hold them), or an argument is of a type not bound here, the query runs
// on the pool as before: a query never waits for a reader.
//
// Why the answers do not change: a reader is an ordinary SQLite connection to the same file with
// the same pragmas; outside a statement it holds no transaction, so each query reads a snapshot
// taken when it starts (WAL), which includes every write committed before (by the writer
// connection or the pool). A kept statement is re-prepared by SQLite itself when the schema
// changed (sqlite3_prepare_v3), on any connection; sqlite3_reset ends its read when its rows are
// closed. A context cancelled during a query interrupts it (sqlite3_interrupt, as the driver does);
// such a reader is then closed rather than reused. Errors read as the driver's.

package fsql

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/FerretDB/FerretDB/internal/util/logging"
	"github.com/FerretDB/FerretDB/internal/util/resource"
)

// agoraReaderStatements bounds the kept statements of one reader.
const agoraReaderStatements = 128

// agoraReaderCount is the number of readers of a DB: AGORA_FERRETDB_READERS, 4 when unset; 0 turns
// them off (every query on the pool, as before patch 0011).
var agoraReaderCount = agoraReadersFromEnv(os.Getenv("AGORA_FERRETDB_READERS"))

func agoraReadersFromEnv(v string) int {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 64 {
		return n
	}

	return 4
}

// AgoraReaderStats counts what the readers did (for tests and measurements).
type AgoraReaderStats struct {
	Hits     int64 // queries that found their statement kept
	Prepared int64 // statements prepared (and kept, but for one-off texts)
	Evicted  int64 // kept statements finalized to make room
	Pool     int64 // queries run on the pool, every reader being busy
	Opened   int64 // reader connections opened
	Dropped  int64 // readers closed after an interrupted query
	Busy     int64 // readers in use now (for one DB only)
}

// agoraReaderTotals are the counts of every DB's readers, published on FerretDB's debug handler
// (/debug/vars, "agora_readers") when it listens.
var agoraReaderTotals agoraCounters

func init() {
	expvar.Publish("agora_readers", expvar.Func(func() any { return agoraReaderTotals.stats() }))
}

// The counters of agoraCounters.
const (
	agoraHits = iota
	agoraPrepared
	agoraEvicted
	agoraPool
	agoraOpened
	agoraDropped
	agoraCounterCount
)

// agoraCounters count what readers did.
type agoraCounters [agoraCounterCount]atomic.Int64

func (c *agoraCounters) stats() AgoraReaderStats {
	return AgoraReaderStats{
		Hits:     c[agoraHits].Load(),
		Prepared: c[agoraPrepared].Load(),
		Evicted:  c[agoraEvicted].Load(),
		Pool:     c[agoraPool].Load(),
		Opened:   c[agoraOpened].Load(),
		Dropped:  c[agoraDropped].Load(),
	}
}

// count adds one to a counter of the DB's readers and to the same of the totals.
func (r *agoraReaders) count(i int) {
	r.counters[i].Add(1)
	agoraReaderTotals[i].Add(1)
}

// agoraReaders is a DB's pool of reader connections.
type agoraReaders struct {
	mu     sync.Mutex
	uri    string
	max    int
	open   int // readers open, idle or busy
	idle   []*agoraReader
	closed bool

	counters agoraCounters
}

// agoraReader is one reader connection and its kept statements.
type agoraReader struct {
	agoraConn

	lru   *list.List // of *agoraStmt, the most recently used first
	stmts map[string]*list.Element
}

// agoraStmt is a prepared statement.
type agoraStmt struct {
	query      string
	s          uintptr
	columns    []string
	kept       bool
	reprepared int32 // SQLITE_STMTSTATUS_REPREPARE when the columns were read
}

func newAgoraReaders(uri string, n int) *agoraReaders {
	return &agoraReaders{uri: uri, max: n}
}

// AgoraReaderStats returns the counts of db's readers (zero without readers).
func (db *DB) AgoraReaderStats() AgoraReaderStats {
	if db.agora == nil {
		return AgoraReaderStats{}
	}

	r := db.agora.readers
	res := r.counters.stats()

	r.mu.Lock()
	res.Busy = int64(r.open - len(r.idle))
	r.mu.Unlock()

	return res
}

// AgoraQueryContext runs query as QueryContext does, on a reader connection with the query's
// statement kept, when db has readers and one is free; otherwise on the pool.
func (db *DB) AgoraQueryContext(ctx context.Context, query string, args ...any) (*Rows, error) {
	if db.agora == nil || db.agora.readers.max == 0 || !agoraBindable(args) {
		return db.QueryContext(ctx, query, args...)
	}

	readers := db.agora.readers

	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// No reader free (or none to be opened, or the DB closed): the pool answers, as before.
	rd, err := readers.get()
	if rd == nil || err != nil {
		readers.count(agoraPool)
		return db.QueryContext(ctx, query, args...)
	}

	var start time.Time

	debug := db.l.Enabled(ctx, slog.LevelDebug)
	if debug {
		start = time.Now()
		db.l.With(slog.Any("args", args)).DebugContext(ctx, fmt.Sprintf(">>> %s", query))
	}

	ar, err := readers.query(ctx, rd, query, args)

	if debug {
		fields := []any{slog.Any("args", args), slog.Duration("time", time.Since(start)), logging.Error(err)}
		db.l.With(fields...).DebugContext(ctx, fmt.Sprintf("<<< %s", query))
	}

	if err != nil {
		return nil, err
	}

	return wrapAgoraRows(ar), nil
}

// agoraBindable reports whether every argument is of a type AgoraQueryContext binds.
func agoraBindable(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case nil, int64, int, int32, float64, bool, string:
		default:
			return false
		}
	}

	return true
}

// get takes an idle reader, opens one if there are fewer than max; nil when all are busy.
func (r *agoraReaders) get() (*agoraReader, error) {
	r.mu.Lock()

	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("fsql: the database is closed")
	}

	if n := len(r.idle); n > 0 {
		rd := r.idle[n-1]
		r.idle[n-1] = nil
		r.idle = r.idle[:n-1]
		r.mu.Unlock()

		return rd, nil
	}

	if r.open >= r.max {
		r.mu.Unlock()
		return nil, nil
	}

	r.open++
	r.mu.Unlock()

	rd := &agoraReader{agoraConn: agoraConn{uri: r.uri}, lru: list.New(), stmts: map[string]*list.Element{}}

	err := rd.open()
	if err == nil {
		err = rd.once("PRAGMA query_only = 1")
	}

	if err != nil {
		rd.close()
		r.forget()

		return nil, err
	}

	r.count(agoraOpened)

	return rd, nil
}

// put gives a reader back (closed instead when the readers are closed).
func (r *agoraReaders) put(rd *agoraReader) {
	r.mu.Lock()

	if !r.closed {
		r.idle = append(r.idle, rd)
		r.mu.Unlock()

		return
	}

	r.open--
	r.mu.Unlock()

	rd.close()
}

// drop closes a reader that is not to be reused.
func (r *agoraReaders) drop(rd *agoraReader) {
	rd.close()
	r.forget()
	r.count(agoraDropped)
}

// forget counts a busy reader as closed.
func (r *agoraReaders) forget() {
	r.mu.Lock()
	r.open--
	r.mu.Unlock()
}

// close closes the idle readers, and makes the busy ones close when given back (DB.Close).
func (r *agoraReaders) close() {
	r.mu.Lock()
	idle := r.idle
	r.idle = nil
	r.open -= len(idle)
	r.closed = true
	r.mu.Unlock()

	for _, rd := range idle {
		rd.close()
	}
}

// close finalizes the reader's statements and closes its connection.
func (rd *agoraReader) close() {
	for e := rd.lru.Front(); e != nil; e = e.Next() {
		sqlite3.Xsqlite3_finalize(rd.tls, e.Value.(*agoraStmt).s)
	}

	rd.lru.Init()
	clear(rd.stmts)
	rd.closeConn()
}

// stmt returns the statement of query: the kept one, or one prepared now (and kept, unless the
// text has a comment, which may hold anything a client sent, or is an EXPLAIN).
func (r *agoraReaders) stmt(rd *agoraReader, query string) (*agoraStmt, error) {
	if e, ok := rd.stmts[query]; ok {
		rd.lru.MoveToFront(e)
		r.count(agoraHits)

		return e.Value.(*agoraStmt), nil
	}

	kept := !strings.Contains(query, "/*")

	z, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(rd.tls, z)

	var flags uint32
	if kept {
		flags = sqlite3.SQLITE_PREPARE_PERSISTENT
	}

	out, read := rd.agoraOut()

	rc := sqlite3.Xsqlite3_prepare_v3(rd.tls, rd.db, z, -1, flags, out, 0)
	s := read()

	if rc != sqlite3.SQLITE_OK {
		if s != 0 {
			sqlite3.Xsqlite3_finalize(rd.tls, s)
		}

		return nil, rd.err(rc)
	}

	if s == 0 {
		return nil, fmt.Errorf("fsql: no statement in %q", query)
	}

	r.count(agoraPrepared)

	// EXPLAIN is answered when prepared, without a look at the schema later: never kept.
	if sqlite3.Xsqlite3_stmt_isexplain(rd.tls, s) != 0 {
		kept = false
	}

	st := &agoraStmt{query: query, s: s, kept: kept}
	st.readColumns(rd.tls)

	if !kept {
		return st, nil
	}

	for rd.lru.Len() >= agoraReaderStatements {
		old := rd.lru.Remove(rd.lru.Back()).(*agoraStmt)
		delete(rd.stmts, old.query)
		sqlite3.Xsqlite3_finalize(rd.tls, old.s)
		r.count(agoraEvicted)
	}

	rd.stmts[query] = rd.lru.PushFront(st)

	return st, nil
}

// readColumns reads the statement's column names (again after SQLite re-prepared it).
func (st *agoraStmt) readColumns(tls *libc.TLS) {
	n := int(sqlite3.Xsqlite3_column_count(tls, st.s))
	st.columns = make([]string, n)

	for i := range n {
		st.columns[i] = libc.GoString(sqlite3.Xsqlite3_column_name(tls, st.s, int32(i)))
	}

	st.reprepared = sqlite3.Xsqlite3_stmt_status(tls, st.s, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0)
}

// forget finalizes a statement and removes it from the kept ones.
func (rd *agoraReader) forget(st *agoraStmt) {
	if e, ok := rd.stmts[st.query]; ok && e.Value.(*agoraStmt) == st {
		rd.lru.Remove(e)
		delete(rd.stmts, st.query)
	}

	sqlite3.Xsqlite3_finalize(rd.tls, st.s)
}

// query binds args to the statement of query on rd and returns its rows; rd is given back (or
// dropped) when they end.
func (r *agoraReaders) query(ctx context.Context, rd *agoraReader, query string, args []any) (*agoraRows, error) {
	st, err := r.stmt(rd, query)
	if err != nil {
		r.put(rd)
		return nil, err
	}

	if err = rd.bind(st.s, args); err != nil {
		rd.forget(st)
		r.put(rd)

		return nil, err
	}

	ar := &agoraRows{readers: r, rd: rd, st: st}

	if ctx.Done() != nil {
		ar.interrupted = make(chan struct{})
		ar.stop = context.AfterFunc(ctx, func() {
			defer close(ar.interrupted)

			// A TLS of its own: the query's may be in use by a step meanwhile.
			tls := libc.NewTLS()
			sqlite3.Xsqlite3_interrupt(tls, rd.db)
			tls.Close()
		})
	}

	ar.ctx = ctx

	return ar, nil
}

// bind binds args (agoraBindable) to s.
func (rd *agoraReader) bind(s uintptr, args []any) error {
	if n := int(sqlite3.Xsqlite3_bind_parameter_count(rd.tls, s)); n != len(args) {
		return fmt.Errorf("sql: expected %d arguments, got %d", n, len(args))
	}

	for i, a := range args {
		var rc int32

		p := int32(i + 1)

		switch a := a.(type) {
		case nil:
			rc = sqlite3.Xsqlite3_bind_null(rd.tls, s, p)
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(rd.tls, s, p, a)
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(rd.tls, s, p, int64(a))
		case int32:
			rc = sqlite3.Xsqlite3_bind_int64(rd.tls, s, p, int64(a))
		case bool:
			var v int64
			if a {
				v = 1
			}

			rc = sqlite3.Xsqlite3_bind_int64(rd.tls, s, p, v)
		case float64:
			rc = sqlite3.Xsqlite3_bind_double(rd.tls, s, p, a)
		case string:
			z, err := libc.CString(a)
			if err != nil {
				return err
			}

			// SQLITE_TRANSIENT (-1): SQLite copies the text, so it is freed at once.
			rc = sqlite3.Xsqlite3_bind_text(rd.tls, s, p, z, int32(len(a)), ^uintptr(0))
			libc.Xfree(rd.tls, z)
		default:
			return fmt.Errorf("fsql: cannot bind %T", a)
		}

		if rc != sqlite3.SQLITE_OK {
			return rd.err(rc)
		}
	}

	return nil
}

// agoraRows are the rows of a query on a reader (what *Rows reads when its agora field is set).
type agoraRows struct {
	readers *agoraReaders
	rd      *agoraReader // nil once given back
	st      *agoraStmt
	ctx     context.Context
	err     error
	row     bool // whether a row is current
	started bool // whether the statement was stepped

	stop        func() bool   // stops the interrupt on cancellation; nil without one
	interrupted chan struct{} // closed when that interrupt is done
}

// next steps to the next row; false at the end or on an error (Err), the reader then given back.
func (ar *agoraRows) next() bool {
	ar.row = false

	if ar.rd == nil {
		return false
	}

	rc := sqlite3.Xsqlite3_step(ar.rd.tls, ar.st.s)

	if !ar.started {
		// The first step re-prepares the statement if the schema changed: its columns may too.
		ar.started = true
		if sqlite3.Xsqlite3_stmt_status(ar.rd.tls, ar.st.s, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0) != ar.st.reprepared {
			ar.st.readColumns(ar.rd.tls)
		}
	}

	switch rc {
	case sqlite3.SQLITE_ROW:
		ar.row = true
		return true
	case sqlite3.SQLITE_DONE:
		ar.release(false)
	default:
		ar.err = ar.rd.err(rc)
		if err := context.Cause(ar.ctx); err != nil && rc&0xff == sqlite3.SQLITE_INTERRUPT {
			ar.err = err
		}

		ar.release(true)
	}

	return false
}

// columns returns the column names.
func (ar *agoraRows) columns() ([]string, error) {
	if ar.rd == nil {
		return nil, errors.New("sql: Rows are closed")
	}

	return ar.st.columns, nil
}

// scan copies the current row's columns to dest: *int64, *string, *[]byte (a copy) or *sql.RawBytes
// (SQLite's memory, valid until the next row or Close, as database/sql's RawBytes).
func (ar *agoraRows) scan(dest ...any) error {
	if !ar.row {
		return errors.New("sql: Scan called without calling Next")
	}

	if len(dest) != len(ar.st.columns) {
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(ar.st.columns), len(dest))
	}

	tls, s := ar.rd.tls, ar.st.s

	for i, d := range dest {
		c := int32(i)
		typ := sqlite3.Xsqlite3_column_type(tls, s, c)

		switch d := d.(type) {
		case *int64:
			if typ != sqlite3.SQLITE_INTEGER {
				return fmt.Errorf("sql: Scan error on column index %d: not an integer (type %d)", i, typ)
			}

			*d = sqlite3.Xsqlite3_column_int64(tls, s, c)
		case *sql.RawBytes:
			*d = ar.bytes(c, typ)
		case *[]byte:
			if b := ar.bytes(c, typ); b != nil {
				*d = append([]byte(nil), b...)
			} else {
				*d = nil
			}
		case *string:
			if typ == sqlite3.SQLITE_NULL {
				return fmt.Errorf("sql: Scan error on column index %d: converting NULL to string is unsupported", i)
			}

			*d = string(ar.bytes(c, typ))
		default:
			return fmt.Errorf("fsql: cannot scan into %T", d)
		}
	}

	return nil
}

// bytes returns column c's text or blob in SQLite's memory; nil for NULL.
func (ar *agoraRows) bytes(c, typ int32) []byte {
	if typ == sqlite3.SQLITE_NULL {
		return nil
	}

	tls, s := ar.rd.tls, ar.st.s

	var p uintptr
	if typ == sqlite3.SQLITE_BLOB {
		p = sqlite3.Xsqlite3_column_blob(tls, s, c)
	} else {
		p = sqlite3.Xsqlite3_column_text(tls, s, c)
	}

	n := sqlite3.Xsqlite3_column_bytes(tls, s, c)
	if p == 0 || n == 0 {
		return []byte{}
	}

	return unsafe.Slice((*byte)(unsafe.Add(nil, p)), n)
}

// release resets the statement and gives the reader back (failed: the statement is finalized).
func (ar *agoraRows) release(failed bool) {
	rd := ar.rd
	if rd == nil {
		return
	}

	ar.rd = nil
	ar.row = false

	// An interrupt that ran, or is running, may leave the connection interrupted: it is not reused.
	interrupted := false
	if ar.stop != nil && !ar.stop() {
		<-ar.interrupted
		interrupted = true
	}

	if failed || !ar.st.kept || interrupted {
		rd.forget(ar.st)
	} else {
		sqlite3.Xsqlite3_reset(rd.tls, ar.st.s)
		sqlite3.Xsqlite3_clear_bindings(rd.tls, ar.st.s)
	}

	if interrupted {
		ar.readers.drop(rd)
		return
	}

	ar.readers.put(rd)
}

// close ends the rows early or late, giving the reader back.
func (ar *agoraRows) close() error {
	ar.release(false)
	return nil
}

// wrapAgoraRows returns ar as *Rows.
func wrapAgoraRows(ar *agoraRows) *Rows {
	res := &Rows{agora: ar, token: resource.NewToken()}
	resource.Track(res, res.token)

	return res
}
