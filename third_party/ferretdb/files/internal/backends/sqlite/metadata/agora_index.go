// Agora's sortable index expressions for the SQLite backend (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0007).
//
// Why: FerretDB indexes a field on its JSON text (_ferretdb_sjson->"f"). That text sorts numbers
// as text ("99" above "199"), strings by their escaped form (`"a b"` below `"a"`), and dates and
// integers alike, so no sort could be served from such an index.
//
// What: every top-level field of an index key (other than the _id index FerretDB creates, which
// stays as it is) becomes two index columns, AgoraRankExpr(f) and AgoraValueExpr(f):
//   - the rank is the field's BSON type class in MongoDB's sort order, read from the stored
//     document's schema ("$s"): null and missing 1, numbers 2, strings 3, ObjectIds 7, booleans
//     8, dates 9, anything else 99;
//   - the value is the field as an SQL value (->>): numbers compare as numbers (integers and
//     doubles exactly), strings as unescaped UTF-8 bytes (MongoDB's simple comparison), dates as
//     milliseconds, booleans as 0 and 1, ObjectIds as fixed-width hex.
// Within ranks 1–9 (rank, value) order is MongoDB's order. Rank 99 (arrays, documents, binary,
// regexes, timestamps) is not: a field that ever holds such a value is never sorted or filtered
// on in SQL (agora_sort.go keeps the list).

package metadata

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// AgoraPlainField matches the field names the sortable expressions are built for.
var AgoraPlainField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// The ranks of AgoraRankExpr.
const (
	AgoraRankNull     = 1
	AgoraRankNumber   = 2
	AgoraRankString   = 3
	AgoraRankObjectID = 7
	AgoraRankBool     = 8
	AgoraRankDate     = 9
	AgoraRankOther    = 99
)

// agoraTypeRanks are the stored types ("$s" "t") that have a rank, in the order AgoraRankExpr tests
// them (its text is in every sortable index, so it must not change); any other type ranks
// AgoraRankOther.
var agoraTypeRanks = []struct {
	typ  string
	rank int
}{
	{"null", AgoraRankNull}, {"int", AgoraRankNumber}, {"long", AgoraRankNumber}, {"double", AgoraRankNumber},
	{"string", AgoraRankString}, {"objectId", AgoraRankObjectID}, {"bool", AgoraRankBool}, {"date", AgoraRankDate},
}

// AgoraRankedType reports whether values of the stored type typ have a rank (not AgoraRankOther).
func AgoraRankedType(typ string) bool {
	for _, r := range agoraTypeRanks {
		if r.typ == typ {
			return true
		}
	}

	return false
}

// AgoraRankedTypesSQL is the list of the stored types that have a rank, as SQL: ('null', 'int', …).
func AgoraRankedTypesSQL() string {
	quoted := make([]string, len(agoraTypeRanks))
	for i, r := range agoraTypeRanks {
		quoted[i] = "'" + r.typ + "'"
	}

	return "(" + strings.Join(quoted, ", ") + ")"
}

// AgoraRankExpr is the SQL expression of field's type rank. field must match AgoraPlainField.
func AgoraRankExpr(field string) string {
	var b strings.Builder

	fmt.Fprintf(&b, `(CASE coalesce(%s->>'$."$s".p.%s.t', 'null')`, DefaultColumn, field)

	for _, r := range agoraTypeRanks {
		fmt.Fprintf(&b, ` WHEN '%s' THEN %d`, r.typ, r.rank)
	}

	fmt.Fprintf(&b, ` ELSE %d END)`, AgoraRankOther)

	return b.String()
}

// AgoraRankedTerm is the condition "field holds a value with a rank" (not rank 99). It is the WHERE
// clause of every non-unique sortable index on its leading field, and agora_sort.go adds it, as
// the same text, to every query on a field that never held an unranked value (where it always
// holds): SQLite uses a partial index only for a query that has the index's condition as a term.
//
// Why: a document whose leading field is an array (tags, say) has no place in such an index, which
// no query can use for that field (agora_sort.go never sorts or filters an unranked field in SQL),
// yet SQLite rewrote its entries at every update of the document: a topic's five indexes led by
// its tag list cost ~1 ms of every vote and comment post on the bench machine.
func AgoraRankedTerm(field string) string {
	return fmt.Sprintf("%s <> %d", AgoraRankExpr(field), AgoraRankOther)
}

// AgoraValueExpr is the SQL expression of field's value. field must match AgoraPlainField.
func AgoraValueExpr(field string) string {
	return fmt.Sprintf(`(%s->>'$.%s')`, DefaultColumn, field)
}

// agoraIndexColumns returns the index columns of one key field: the sortable pair for a
// top-level plain field of any index but _id's, FerretDB's JSON-text column otherwise.
func agoraIndexColumns(indexName, field string, descending bool) []string {
	dir := ""
	if descending {
		dir = " DESC"
	}

	if indexName == "_id_" || !AgoraPlainField.MatchString(field) {
		return nil
	}

	return []string{AgoraRankExpr(field) + dir, AgoraValueExpr(field) + dir}
}

// agoraCreateIndexStatement returns the CREATE INDEX statement of index on table.
func agoraCreateIndexStatement(table string, index IndexInfo) string {
	columns := make([]string, 0, len(index.Key))

	for _, key := range index.Key {
		if agora := agoraIndexColumns(index.Name, key.Field, key.Descending); agora != nil {
			columns = append(columns, agora...)
			continue
		}

		// FerretDB's column.
		fields := strings.Split(key.Field, ".")
		for j, f := range fields {
			fields[j] = fmt.Sprintf("%q", f)
		}

		column := fmt.Sprintf("%s->%s", DefaultColumn, strings.Join(fields, "->"))
		if key.Descending {
			column += " DESC"
		}

		columns = append(columns, column)
	}

	unique := ""
	if index.Unique {
		unique = "UNIQUE "
	}

	// Partial on the leading field's rank (AgoraRankedTerm); a unique index stays whole, since its
	// uniqueness covers every document.
	where := ""
	if len(index.Key) > 0 && !index.Unique && agoraIndexColumns(index.Name, index.Key[0].Field, false) != nil {
		where = " WHERE " + AgoraRankedTerm(index.Key[0].Field)
	}

	return fmt.Sprintf(
		"CREATE %sINDEX %q ON %q (%s)%s", unique, table+"_"+index.Name, table, strings.Join(columns, ", "), where,
	)
}

// agoraUpgradeIndexes rebuilds, when a database is opened, every index of its collections that an
// earlier build made with other columns (FerretDB's JSON text, before patch 0007), so that a
// database created before gets sortable indexes. It is done once: a rebuilt index is as this build
// makes it.
//
// A rebuild that fails leaves the index as it was (the drop is rolled back with it) and does not
// keep the database from opening: the only unique index it could fail on is one whose old JSON-text
// key told apart values MongoDB holds equal (a double -0 and 0). Queries stay right on the old
// index, which they just do not use.
func agoraUpgradeIndexes(ctx context.Context, db *fsql.DB, colls map[string]*Collection) error {
	for _, c := range colls {
		for _, index := range c.Settings.Indexes {
			_ = agoraRebuildIndex(ctx, db, c.TableName+"_"+index.Name, agoraCreateIndexStatement(c.TableName, index))
		}
	}

	return ctx.Err()
}

// agoraRebuildIndex makes the SQLite index sqlName the one create (a CREATE INDEX statement) makes.
func agoraRebuildIndex(ctx context.Context, db *fsql.DB, sqlName, create string) error {
	var current string

	err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, sqlName).
		Scan(&current)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return lazyerrors.Error(err)
	}

	if current == create {
		return nil
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DROP INDEX IF EXISTS %q`, sqlName)); err != nil {
			return lazyerrors.Error(err)
		}

		if _, err := tx.ExecContext(ctx, create); err != nil {
			return lazyerrors.Error(err)
		}

		return nil
	})
}
