// Agora's sorted reads, the handler's part (the backend's is backends/sqlite/agora_sort.go, patch 0007).

package handler

import (
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
)

// agoraSortParams returns the sort and the number of documents to read (skip + limit; 0 for all)
// that a find hands to the backend: none with the pushdown disabled, nor for a $natural sort,
// which FerretDB handles itself.
func agoraSortParams(disabled bool, sort *types.Document, skip, limit int64) (*types.Document, int64) {
	if disabled || sort.Len() == 0 || sort.Has("$natural") {
		return nil, 0
	}

	if limit <= 0 || skip < 0 || skip > 1<<40 || limit > 1<<40 {
		return sort, 0
	}

	return sort, skip + limit
}

// agoraWithoutSort returns a copy of params without its sort, for documents the backend has sorted.
func agoraWithoutSort(params *common.FindParams) *common.FindParams {
	p := *params
	p.Sort = nil

	return &p
}
