// Agora's updates and inserts on the writer connection (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0009).
//
// Why: modernc.org/sqlite compiles the UPDATE afresh for every document it writes back, and with a
// collection's sortable indexes (patch 0007) the compilation costs more than the update itself.
//
// What: UpdateAll runs its statements in one transaction of the database's writer connection
// (fsql.DB.AgoraWrite), where the UPDATE of each table is prepared once and kept; so does InsertAll
// for a collection that is not capped (the INSERT of one document is kept, a multi-row batch is
// prepared for its one use). The statements, their arguments, the transaction, the count of updated
// documents and the duplicate-key error are those of FerretDB's UpdateAll and InsertAll.
//
// agoraInsertEach serves an insert command whose batch failed on a taken _id: see its comment.

package sqlite

import (
	"context"
	"errors"

	sqlite3lib "modernc.org/sqlite/lib"

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

// agoraInsertAll inserts docs into table (not capped) on db's writer, batchSize documents per statement.
func agoraInsertAll(ctx context.Context, db *fsql.DB, table string, batchSize int, docs []*types.Document) error {
	return db.AgoraWrite(ctx, func(tx *fsql.AgoraWriteTx) error {
		for len(docs) > 0 {
			var batch []*types.Document

			i := min(batchSize, len(docs))
			batch, docs = docs[:i], docs[i:]

			q, texts, err := agoraInsertStatement(table, batch)
			if err != nil {
				return err
			}

			exec := tx.ExecOnce
			if len(batch) == 1 {
				exec = tx.Exec
			}

			if _, err = exec(q, texts...); err != nil {
				if agoraDuplicate(err) {
					return backends.NewError(backends.ErrorCodeInsertDuplicateID, err)
				}

				return lazyerrors.Error(err)
			}
		}

		return nil
	})
}

// agoraInsertEach inserts docs into table (not capped) on db's writer, one statement each, in one
// transaction (fsql.AgoraInsertEach, patch 0017). A document whose _id is taken fails its own
// statement only: SQLite's default conflict resolution (ABORT) undoes that statement, not the
// transaction. It is listed and skipped, or, with each.Ordered, ends the inserts. FerretDB's handler
// used to commit each document of such a batch on its own: a duplicate among 8 inserts cost 9
// commits instead of 2.
func agoraInsertEach(
	ctx context.Context, db *fsql.DB, table string, docs []*types.Document, each *fsql.AgoraInsertEach,
) error {
	var inserted int

	var duplicates []int

	err := db.AgoraWrite(ctx, func(tx *fsql.AgoraWriteTx) error {
		for i, doc := range docs {
			q, texts, err := agoraInsertStatement(table, []*types.Document{doc})
			if err != nil {
				return err
			}

			if _, err = tx.Exec(q, texts...); err != nil {
				if !agoraDuplicate(err) {
					return lazyerrors.Error(err)
				}

				duplicates = append(duplicates, i)

				if each.Ordered {
					return nil
				}

				continue
			}

			inserted++
		}

		return nil
	})
	if err != nil {
		return err
	}

	each.Done, each.Inserted, each.Duplicates = true, inserted, duplicates

	return nil
}

// agoraInsertStatement is FerretDB's INSERT of docs into table (not capped), its arguments as the
// texts the writer binds.
func agoraInsertStatement(table string, docs []*types.Document) (string, []string, error) {
	q, args, err := prepareInsertStatement(table, false, docs)
	if err != nil {
		return "", nil, lazyerrors.Error(err)
	}

	texts := make([]string, len(args))
	for j, a := range args {
		texts[j] = a.(string)
	}

	return q, texts, nil
}

// agoraDuplicate reports whether err is SQLite's failure of a unique index (a taken _id or key).
func agoraDuplicate(err error) bool {
	var ae *fsql.AgoraError
	return errors.As(err, &ae) && ae.Code() == sqlite3lib.SQLITE_CONSTRAINT_UNIQUE
}
