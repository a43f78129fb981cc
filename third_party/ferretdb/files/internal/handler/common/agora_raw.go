// Agora's raw reads (patch 0008): a find whose answer needs no work in Go beyond an exclusion
// projection gets its documents from the backend as BSON, written from the stored form directly.
// The request travels in the query's context, as the sort request does (agora_sort.go).

package common

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// AgoraRawRequest asks the backend for documents as BSON without the top-level fields in Exclude.
// The backend sets Ready when the query's iterator is an AgoraRawIterator whose documents need
// no filtering, sorting, skipping or limiting in Go: its SQL applies the whole filter, sort and limit.
type AgoraRawRequest struct {
	Exclude []string
	Ready   bool
}

// AgoraRawIterator is a documents iterator that can also give each document as BSON.
type AgoraRawIterator interface {
	types.DocumentsIterator

	// NextRaw appends the next document to dst as BSON without the excluded fields, or, when it
	// could not write it exactly as FerretDB would, returns dst as given and the document, to
	// project and encode.
	NextRaw(dst []byte) ([]byte, *types.Document, error)
}

type agoraRawKey struct{}

// AgoraWithRawRequest returns ctx carrying r.
func AgoraWithRawRequest(ctx context.Context, r *AgoraRawRequest) context.Context {
	return context.WithValue(ctx, agoraRawKey{}, r)
}

// AgoraRawRequestFrom returns the request ctx carries, or nil.
func AgoraRawRequestFrom(ctx context.Context) *AgoraRawRequest {
	r, _ := ctx.Value(agoraRawKey{}).(*AgoraRawRequest)
	return r
}
