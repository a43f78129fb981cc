// Agora's journal commits (third_party/ferretdb/README.md, docs/embedded-database.md, patch 0016).
//
// Why: with SQLite's synchronous=FULL every committed write waits for an fsync of the WAL (up to
// ~0.5 ms per write command on the project machine, three of them in a row per vote or comment).
// MongoDB does not do that by default: a write acknowledged with w:1 is applied in memory and in
// the journal's buffer, and the journal reaches the disk every 100 ms (storage.journal.commitIntervalMs)
// or at once for a write whose writeConcern asks for it (j: true, or fsync: true).
//
// What: Agora's launcher opens the databases with synchronous=NORMAL, under which a commit is
// written to the WAL (so it survives the process crashing, and SQLite's recovery never sees half a
// transaction) but not synced, and this file gives the WAL MongoDB's two syncs back:
//   - every 100 ms, the WAL of each database written since the last sync is fsynced (the flusher);
//   - AgoraSyncJournals fsyncs a database's WAL at once; the handler calls it after a write command
//     whose writeConcern has j or fsync true (handler/agora_journal.go), before it answers.
//
// A database registers its WAL when it gets a writer connection (file databases only:
// AgoraUseWriter) and leaves when it closes. The handler marks the journal of the command's database
// written after every write command (AgoraJournalWritten); a sync takes the mark off before it
// starts, under the journal's lock, so a write marked before a sync began is covered by it, one
// marked after keeps its mark, and a caller that finds no mark under the lock knows that a sync
// which began after its write has finished. The WAL is opened by path for each sync: fsync applies to the file, not to the
// descriptor, and SQLite's own descriptor is not reachable through the driver.

package fsql

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// AgoraJournalInterval is how often the flusher syncs a written WAL (MongoDB's commitIntervalMs).
const AgoraJournalInterval = 100 * time.Millisecond

// agoraJournal is the WAL of one database file.
type agoraJournal struct {
	db    string // the database's name (its file is <name>.sqlite)
	wal   string
	dirty atomic.Bool
	mu    sync.Mutex // held across a sync
}

var (
	agoraJournalsMu sync.Mutex
	agoraJournals   = map[*agoraJournal]struct{}{}
	agoraFlusher    sync.Once

	// agoraJournalSyncs counts the fsyncs done (tests).
	agoraJournalSyncs atomic.Int64
)

// agoraWALPath returns the WAL file of the database a pool URI ("file:/dir/db.sqlite?...") opens.
func agoraWALPath(uri string) string {
	p, _, _ := strings.Cut(strings.TrimPrefix(uri, "file:"), "?")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}

	return p + "-wal"
}

// agoraRegisterJournal registers the WAL of the database at uri; the flusher starts with the first.
func agoraRegisterJournal(uri string) *agoraJournal {
	wal := agoraWALPath(uri)
	j := &agoraJournal{db: strings.TrimSuffix(filepath.Base(strings.TrimSuffix(wal, "-wal")), ".sqlite"), wal: wal}

	agoraJournalsMu.Lock()
	agoraJournals[j] = struct{}{}
	agoraJournalsMu.Unlock()

	agoraFlusher.Do(func() { go agoraFlush() })

	return j
}

// agoraUnregisterJournal syncs j one last time if it was written, and forgets it.
func agoraUnregisterJournal(j *agoraJournal) {
	agoraJournalsMu.Lock()
	delete(agoraJournals, j)
	agoraJournalsMu.Unlock()

	_ = j.sync()
}

// agoraFlush syncs the written journals every AgoraJournalInterval, for the life of the process.
func agoraFlush() {
	for range time.Tick(AgoraJournalInterval) {
		// Errors are not lost: the mark stays, and the next sync (or a j:true write) reports them.
		_ = agoraSyncJournals(agoraSelect(""))
	}
}

// agoraSelect returns the journals of database db, or all of them when db is "".
func agoraSelect(db string) []*agoraJournal {
	agoraJournalsMu.Lock()
	defer agoraJournalsMu.Unlock()

	js := make([]*agoraJournal, 0, len(agoraJournals))

	for j := range agoraJournals {
		if db == "" || j.db == db {
			js = append(js, j)
		}
	}

	return js
}

// AgoraJournalWritten marks the journal of database db written (every journal when db is ""); the
// handler calls it after a write command.
func AgoraJournalWritten(db string) {
	for _, j := range agoraSelect(db) {
		j.dirty.Store(true)
	}
}

// AgoraSyncJournals marks the journal of database db written (every journal when db is "") and syncs
// it: when it returns without an error, every write to it committed before the call is on disk.
func AgoraSyncJournals(db string) error {
	js := agoraSelect(db)

	for _, j := range js {
		j.dirty.Store(true)
	}

	return agoraSyncJournals(js)
}

// agoraSyncJournals syncs those of js marked written.
func agoraSyncJournals(js []*agoraJournal) error {

	var errs []error

	for _, j := range js {
		if err := j.sync(); err != nil {
			errs = append(errs, err)
		}
	}

	return errors.Join(errs...)
}

// sync fsyncs j's WAL if it is marked written; on a failure the mark is put back.
func (j *agoraJournal) sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()

	if !j.dirty.Swap(false) {
		return nil
	}

	f, err := os.Open(j.wal)
	if err != nil {
		// No WAL (never written, or removed by SQLite's last close after its checkpoint): nothing to sync.
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}

		j.dirty.Store(true)

		return err
	}

	err = f.Sync()
	_ = f.Close()

	if err != nil {
		j.dirty.Store(true)
		return err
	}

	agoraJournalSyncs.Add(1)

	return nil
}

// AgoraJournalSyncs returns how many WAL fsyncs were done (tests).
func AgoraJournalSyncs() int64 {
	return agoraJournalSyncs.Load()
}
