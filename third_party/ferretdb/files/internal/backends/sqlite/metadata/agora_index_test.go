// Tests of Agora's sortable index columns (agora_index.go, patch 0007).

package metadata

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// TestAgoraIndexRebuild: an index an earlier build made on JSON text is rebuilt with sortable columns
// when the database is opened, and an index already sortable is left alone (not rebuilt at every start).
func TestAgoraIndexRebuild(t *testing.T) {
	t.Parallel()
	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	uri := testutil.TestSQLiteURI(t, "")
	r, err := NewRegistry(uri, 100, testutil.Logger(t), sp)
	require.NoError(t, err)
	t.Cleanup(r.Close)

	dbName := testutil.DatabaseName(t)
	db, err := r.DatabaseGetOrCreate(ctx, dbName)
	require.NoError(t, err)

	cName := testutil.CollectionName(t)
	index := IndexInfo{Name: "f_1", Key: []IndexKeyPair{{Field: "f", Descending: true}}}
	require.NoError(t, r.IndexesCreate(ctx, dbName, cName, []IndexInfo{index}))

	table := r.CollectionGet(ctx, dbName, cName).TableName
	sqlName := table + "_f_1"

	schema := func() (string, int64) {
		var sql string
		var root int64
		q := `SELECT sql, rootpage FROM sqlite_schema WHERE type = 'index' AND name = ?`
		require.NoError(t, db.QueryRowContext(ctx, q, sqlName).Scan(&sql, &root))

		return sql, root
	}

	want := fmt.Sprintf(
		`CREATE INDEX %q ON %q (%s DESC, %s DESC) WHERE %s`,
		sqlName, table, AgoraRankExpr("f"), AgoraValueExpr("f"), AgoraRankedTerm("f"),
	)
	sql, root := schema()
	assert.Equal(t, want, sql)

	// Opened again: the same index, not rebuilt.
	require.NoError(t, agoraUpgradeIndexes(ctx, db, map[string]*Collection{cName: r.CollectionGet(ctx, dbName, cName)}))
	sql2, root2 := schema()
	assert.Equal(t, want, sql2)
	assert.Equal(t, root, root2)

	// As an earlier build made it: rebuilt when the database is opened.
	_, err = db.ExecContext(ctx, fmt.Sprintf(`DROP INDEX %q`, sqlName))
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX %q ON %q (_ferretdb_sjson->"f" DESC)`, sqlName, table))
	require.NoError(t, err)

	r.Close()

	r, err = NewRegistry(uri, 100, testutil.Logger(t), sp)
	require.NoError(t, err)
	t.Cleanup(r.Close)

	db = r.DatabaseGetExisting(ctx, dbName)
	require.NotNil(t, db)

	sql, _ = schema()
	assert.Equal(t, want, sql)

	// A rebuild that cannot be done (a unique index over values the new columns hold equal, 0 and
	// -0 here) leaves the old index and opens the database all the same.
	uniqueName := table + "_u_1"
	_, err = db.ExecContext(ctx, fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (_ferretdb_sjson->"u")`, uniqueName, table))
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %q (_ferretdb_sjson) VALUES (?), (?)`, table),
		`{"$s":{"p":{"_id":{"t":"int"},"u":{"t":"double"}},"$k":["_id","u"]},"_id":1,"u":0}`,
		`{"$s":{"p":{"_id":{"t":"int"},"u":{"t":"double"}},"$k":["_id","u"]},"_id":2,"u":-0}`)
	require.NoError(t, err)

	coll := r.CollectionGet(ctx, dbName, cName)
	unique := IndexInfo{Name: "u_1", Key: []IndexKeyPair{{Field: "u"}}, Unique: true}
	coll.Settings.Indexes = append(coll.Settings.Indexes, unique)
	require.NoError(t, agoraUpgradeIndexes(ctx, db, map[string]*Collection{cName: coll}))

	var uniqueSQL string
	uniqueQuery := `SELECT sql FROM sqlite_schema WHERE name = ?`
	require.NoError(t, db.QueryRowContext(ctx, uniqueQuery, uniqueName).Scan(&uniqueSQL))
	assert.Contains(t, uniqueSQL, `(_ferretdb_sjson->"u")`)

	// The _id index stays on the JSON text FerretDB looks documents up by.
	var idSQL string
	require.NoError(t, db.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = ?`, table+"__id_").Scan(&idSQL))
	assert.Contains(t, idSQL, `(_ferretdb_sjson->"_id")`)
}

// TestAgoraIndexPartial: a non-unique sortable index holds only the documents whose leading field
// has a rank (not an array), and SQLite uses it for a query that carries AgoraRankedTerm as a term.
func TestAgoraIndexPartial(t *testing.T) {
	t.Parallel()
	ctx := testutil.Ctx(t)

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	r, err := NewRegistry(testutil.TestSQLiteURI(t, ""), 100, testutil.Logger(t), sp)
	require.NoError(t, err)
	t.Cleanup(r.Close)

	dbName := testutil.DatabaseName(t)
	db, err := r.DatabaseGetOrCreate(ctx, dbName)
	require.NoError(t, err)

	cName := testutil.CollectionName(t)
	index := IndexInfo{Name: "f_1_n_1", Key: []IndexKeyPair{{Field: "f"}, {Field: "n"}}}
	require.NoError(t, r.IndexesCreate(ctx, dbName, cName, []IndexInfo{index}))

	table := r.CollectionGet(ctx, dbName, cName).TableName
	sqlName := table + "_f_1_n_1"

	_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %q (_ferretdb_sjson) VALUES (?), (?), (?)`, table),
		`{"$s":{"p":{"_id":{"t":"int"},"f":{"t":"array","i":[{"t":"string"}]},"n":{"t":"int"}},"$k":["_id","f","n"]},`+
			`"_id":1,"f":["a"],"n":1}`,
		`{"$s":{"p":{"_id":{"t":"int"},"f":{"t":"string"},"n":{"t":"int"}},"$k":["_id","f","n"]},"_id":2,"f":"a","n":2}`,
		`{"$s":{"p":{"_id":{"t":"int"},"n":{"t":"int"}},"$k":["_id","n"]},"_id":3,"n":3}`)
	require.NoError(t, err)

	// Read through the index alone: the document whose f is an array is not in it.
	var ids []int
	rows, err := db.QueryContext(ctx, fmt.Sprintf(
		`SELECT _ferretdb_sjson->>'$._id' FROM %q INDEXED BY %q WHERE %s ORDER BY 1`, table, sqlName, AgoraRankedTerm("f"),
	))
	require.NoError(t, err)

	for rows.Next() {
		var id int
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}

	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	assert.Equal(t, []int{2, 3}, ids)

	plan := func(where string) string {
		var res string

		rows, err := db.QueryContext(ctx, fmt.Sprintf(`EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM %q WHERE %s`, table, where))
		require.NoError(t, err)

		for rows.Next() {
			var id, parent, notused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &notused, &detail))
			res += detail + "\n"
		}

		require.NoError(t, rows.Err())
		require.NoError(t, rows.Close())

		return res
	}

	eq := fmt.Sprintf("%s = %d AND %s = 'a'", AgoraRankExpr("f"), AgoraRankString, AgoraValueExpr("f"))
	assert.Contains(t, plan(eq+" AND "+AgoraRankedTerm("f")), "USING INDEX "+sqlName)
	assert.NotContains(t, plan(eq), "USING INDEX "+sqlName)
}
