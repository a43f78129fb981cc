// Agora's sorted reads (patch 0007): what a find asks of the backend beyond FerretDB's QueryParams.
// It travels in the query's context, so that FerretDB's backend interface stays as it is.

package common

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/types"
)

// AgoraSortRequest asks the backend for documents in Sort's order (any top-level keys) and, when
// Limit is not 0, for at most Limit of them (a find's skip + limit), which the backend may apply
// only when it applies the whole filter and sort. The backend sets Sorted when it did sort.
type AgoraSortRequest struct {
	Sort   *types.Document
	Limit  int64
	Sorted bool
}

type agoraSortKey struct{}

// AgoraWithSortRequest returns ctx carrying r.
func AgoraWithSortRequest(ctx context.Context, r *AgoraSortRequest) context.Context {
	return context.WithValue(ctx, agoraSortKey{}, r)
}

// AgoraSortRequestFrom returns the request ctx carries, or nil.
func AgoraSortRequestFrom(ctx context.Context) *AgoraSortRequest {
	r, _ := ctx.Value(agoraSortKey{}).(*AgoraSortRequest)
	return r
}
