// Agora: the oplog of an insert that skipped taken _ids (fsql.AgoraInsertEach, patch 0017).

package oplog

import (
	"context"
	"slices"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
)

// agoraInsertedDocs returns the documents of docs that InsertAll wrote: all of them, unless the
// backend honoured ctx's fsql.AgoraInsertEach; then those not listed as duplicates, up to Inserted
// of them (an ordered insert stops at its first duplicate). The oplog collection is capped, so its
// own InsertAll, under the same ctx, is a plain one.
func agoraInsertedDocs(ctx context.Context, docs []*types.Document) []*types.Document {
	each := fsql.AgoraInsertEachOf(ctx)
	if each == nil || !each.Done {
		return docs
	}

	inserted := make([]*types.Document, 0, each.Inserted)

	for i, doc := range docs {
		if len(inserted) == each.Inserted {
			break
		}

		if !slices.Contains(each.Duplicates, i) {
			inserted = append(inserted, doc)
		}
	}

	return inserted
}
