// Agora's atomic single-document writes (third_party/ferretdb/README.md, docs/embedded-database.md).
//
// Why: FerretDB runs update, findAndModify and delete as "read the documents, compute, write them
// back" with nothing between the read and the write, so two concurrent writes to one document
// could both read its old state, and the second write then undid the first: 50 parallel $inc of
// one field left a handful, and two $sets of different fields could lose one. MongoDB applies
// each single-document write atomically, and Agora's domain relies on that.
//
// What: one writer lock per collection, held by every statement of update, by findAndModify and
// by every statement of delete from its read to its write (patch 0006). FerretDB is the only
// process that opens its SQLite files (the launcher gives it a data folder of its own), so a lock
// in the process covers every writer. Inserts take no lock: they read nothing, and a concurrent
// insert of the same _id is refused by the unique index, as on MongoDB. Reads take no lock either:
// SQLite's WAL mode gives them a consistent snapshot of each document.
//
// The cost: the writes of one collection run one at a time. They did in effect already, for
// SQLite allows one writer per database file at a time; what is serialized now is the read that
// precedes each write, a few milliseconds at most with the filter pushdown's indexes.

package handler

import "sync"

// agoraWriteLocks holds a *sync.Mutex per collection, keyed by database and collection name.
// Entries are never removed: there is one per collection ever written, a few bytes each.
var agoraWriteLocks sync.Map

// agoraLockCollection waits for the collection's writer lock and returns the function that releases it.
func agoraLockCollection(dbName, cName string) (unlock func()) {
	v, _ := agoraWriteLocks.LoadOrStore(dbName+"\x00"+cName, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	mu.Lock()

	return mu.Unlock
}
