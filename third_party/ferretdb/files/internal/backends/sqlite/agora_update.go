// Agora's updates on the writer connection (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0009).
//
// Why: modernc.org/sqlite compiles the UPDATE afresh for every document it writes back, and with a
// collection's sortable indexes (patch 0007) the compilation costs more than the update itself.
//
// What: UpdateAll runs its statements in one transaction of the database's writer connection
// (fsql.DB.AgoraWrite), where the UPDATE of each table is prepared once and kept. The statement, its
// arguments, the transaction and the count of updated documents are those of FerretDB's UpdateAll.

package sqlite

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// agoraUpdateAll writes docs back with q (UPDATE … SET document = ? WHERE _id = ?) on db's writer.
func agoraUpdateAll(
	ctx context.Context, db *fsql.DB, q string, docs []*types.Document,
) (*backends.UpdateAllResult, error) {
	var res backends.UpdateAllResult

	err := db.AgoraWrite(ctx, func(tx *fsql.AgoraWriteTx) error {
		for _, doc := range docs {
			b, err := sjson.Marshal(doc)
			if err != nil {
				return lazyerrors.Error(err)
			}

			id, _ := doc.Get("_id")
			must.NotBeZero(id)

			arg := string(must.NotFail(sjson.MarshalSingleValue(id)))

			ra, err := tx.Exec(q, string(b), arg)
			if err != nil {
				return lazyerrors.Error(err)
			}

			res.Updated += int32(ra)
		}

		return nil
	})
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	return &res, nil
}
