// Agora: an insert that skips taken _ids in one transaction (patch 0017). The handler asks for it
// through the context of Collection.InsertAll, so that backends.InsertAllParams (a package whose
// tests need PostgreSQL) stays FerretDB's; a backend that does not know it ignores it.

package fsql

import "context"

// AgoraInsertEach asks InsertAll to insert each document on its own within one transaction: a
// document whose _id (or another unique key) is taken is skipped, or, with Ordered, ends the
// inserts. The backend that honours it sets Done, Inserted and Duplicates (indexes into the
// documents, ascending). Only plain (not capped) collections of a database with a writer do.
type AgoraInsertEach struct {
	Ordered    bool
	Done       bool
	Inserted   int
	Duplicates []int
}

type agoraInsertEachKey struct{}

// WithAgoraInsertEach returns ctx carrying e.
func WithAgoraInsertEach(ctx context.Context, e *AgoraInsertEach) context.Context {
	return context.WithValue(ctx, agoraInsertEachKey{}, e)
}

// AgoraInsertEachOf returns the request ctx carries, or nil.
func AgoraInsertEachOf(ctx context.Context) *AgoraInsertEach {
	e, _ := ctx.Value(agoraInsertEachKey{}).(*AgoraInsertEach)
	return e
}
