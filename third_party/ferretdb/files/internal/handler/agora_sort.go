// Agora's sorted reads, the handler's part (the backend's is backends/sqlite/agora_sort.go, patch 0007).

package handler

import (
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
)

// agoraSortRequest returns what a find asks of the backend beyond QueryParams: its sort and the
// number of documents to read (skip + limit; 0 for all). Nothing with the pushdown disabled, nor
// for a $natural sort, which FerretDB handles itself.
func agoraSortRequest(disabled bool, sort *types.Document, skip, limit int64) *common.AgoraSortRequest {
	if disabled || sort.Len() == 0 || sort.Has("$natural") {
		return nil
	}

	if limit <= 0 || skip < 0 || skip > 1<<40 || limit > 1<<40 {
		return &common.AgoraSortRequest{Sort: sort}
	}

	return &common.AgoraSortRequest{Sort: sort, Limit: skip + limit}
}

// agoraWithoutSort returns a copy of params without its sort, for documents the backend has sorted.
func agoraWithoutSort(params *common.FindParams) *common.FindParams {
	p := *params
	p.Sort = nil

	return &p
}
