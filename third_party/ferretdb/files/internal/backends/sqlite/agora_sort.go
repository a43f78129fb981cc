// Agora's sorted reads for the SQLite backend (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0007).
//
// Why: FerretDB 1.24 sorts every find in Go: a page of 50 topics out of 10,000 read, decoded and
// sorted all 10,000 (200 ms), where MongoDB reads 50 rows of an index.
//
// What: a find whose sort keys are top-level fields gets ORDER BY on the sortable index
// expressions (metadata/agora_index.go), so SQLite walks the collection's index in order, and
// the handler reads only until its page is full. When the whole filter is translated to SQL
// exactly, LIMIT (skip + limit) goes to SQLite too. Anything else takes FerretDB's path.
//
// Why the answers do not change:
//   - (rank, value) order is MongoDB's order for null/missing, numbers, strings, ObjectIds,
//     booleans and dates. A field that holds anything else (an array, a document, binary data,
//     a regex, a timestamp) in any document of the collection is never sorted or filtered on in
//     SQL: agoraShapes keeps, per collection, the names of such fields. It is read once from the
//     table, in the background (until then queries get only narrowing terms that also let rank
//     99 through, and no ORDER BY), and then kept current by every insert and update, which
//     records a document's fields before writing it (FerretDB is the only process that writes its
//     SQLite files). So the equality {f: v}, which would also match arrays containing v, is exact
//     in SQL.
//   - The filter terms (agoraTranslate) compare the same rank and value, so a value of another
//     BSON type never compares: {f: {$gt: 5}} is (rank = number AND value > 5), as MongoDB's type
//     bracketing has it. Values whose SQL comparison could differ from MongoDB's (integers beyond
//     2^53, NaN and infinities) are not translated.
//   - Every returned document is checked again: its sort fields must be of a ranked type and in
//     order after the previous one by FerretDB's own comparison. With LIMIT the page is read
//     first and, on any mismatch, the query is run again without the sort (FerretDB's path);
//     when streaming, a mismatch ends the query with an error rather than a wrong answer.
// agora_sort_test.go checks this on a real SQLite backend against FerretDB's own sort; Agora's
// test/integration/database-sort.test.ts compares random corpora and queries with the pushdown
// on and off.

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// agoraShape holds the names of a collection's top-level fields that ever held a value without a rank.
type agoraShape struct {
	mu       sync.Mutex
	loaded   bool
	loading  bool
	done     chan struct{} // closed when the load that is running ends; nil when none is
	unranked map[string]struct{}
}

// agoraShapeWait is how long a query waits for its collection's unranked fields while they are read.
//
// Why: planned without them, a query gets only narrowing terms and no ORDER BY (agoraTranslateWide):
// the first read of a topic's comments after a start scanned all 100,000 comments of the bench
// dataset, evaluating JSON in every row, for ~3 s, where the fields are read in ~0.5 s
// (agoraScanShape). A load slower than this (a huge collection, a busy machine) leaves its queries
// to the wide plan, as before; so does a caller that holds what the load would need, for this long.
const agoraShapeWait = 2 * time.Second

// agoraShapes maps database and table name to *agoraShape.
var agoraShapes sync.Map

func agoraShapeOf(dbName, table string) *agoraShape {
	v, _ := agoraShapes.LoadOrStore(dbName+"\x00"+table, &agoraShape{unranked: map[string]struct{}{}})
	return v.(*agoraShape)
}

// agoraRanked reports whether v is of a type whose (rank, value) order is MongoDB's order.
func agoraRanked(v any) bool {
	switch v.(type) {
	case int32, int64, float64, string, types.ObjectID, bool, time.Time, types.NullType:
		return true
	default:
		return false
	}
}

// agoraRecordDocs records the unranked top-level fields of docs before they are written.
func agoraRecordDocs(dbName, table string, docs []*types.Document) {
	var names []string

	for _, doc := range docs {
		for _, k := range doc.Keys() {
			if v, _ := doc.Get(k); !agoraRanked(v) {
				names = append(names, k)
			}
		}
	}

	if len(names) == 0 {
		return
	}

	s := agoraShapeOf(dbName, table)
	s.mu.Lock()
	defer s.mu.Unlock()

	missing := false

	for _, n := range names {
		if _, ok := s.unranked[n]; !ok {
			missing = true
			break
		}
	}

	if !missing {
		return
	}

	// Copy on write: a set handed out earlier is never changed under its reader.
	res := make(map[string]struct{}, len(s.unranked)+len(names))
	for n := range s.unranked {
		res[n] = struct{}{}
	}

	for _, n := range names {
		res[n] = struct{}{}
	}

	s.unranked = res
}

// agoraUnranked returns the set of the collection's unranked fields (not to be changed), or false
// while it is not known yet: the first call starts reading it from the table in the background
// (agoraLoadShape), and waits for it up to agoraShapeWait; queries that find it still unknown are
// planned without it.
func agoraUnranked(db *fsql.DB, dbName, table string) (map[string]struct{}, bool) {
	s := agoraShapeOf(dbName, table)

	s.mu.Lock()

	if s.loaded {
		defer s.mu.Unlock()
		return s.unranked, true
	}

	if !s.loading {
		s.loading = true
		s.done = make(chan struct{})

		go func(done chan struct{}) {
			defer close(done)

			if err := agoraLoadShape(context.Background(), db, dbName, table); err != nil {
				// The database went away or failed; a later query tries again.
				s.mu.Lock()
				s.loading = false
				s.done = nil
				s.mu.Unlock()
			}
		}(s.done)
	}

	done := s.done
	s.mu.Unlock()

	if done == nil {
		return nil, false
	}

	timer := time.NewTimer(agoraShapeWait)
	defer timer.Stop()

	select {
	case <-done:
	case <-timer.C:
		return nil, false
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	if s.loaded {
		return s.unranked, true
	}

	return nil, false
}

// agoraLoadShape reads the collection's unranked fields from its table.
func agoraLoadShape(ctx context.Context, db *fsql.DB, dbName, table string) error {
	// Writes that run meanwhile have recorded their fields already (agoraRecordDocs runs before
	// the write), so the union below misses none.
	names, ok, err := agoraScanShape(ctx, db, table)
	if err != nil {
		return lazyerrors.Error(err)
	}

	if !ok {
		if names, err = agoraQueryShape(ctx, db, table); err != nil {
			return lazyerrors.Error(err)
		}
	}

	s := agoraShapeOf(dbName, table)

	s.mu.Lock()
	defer s.mu.Unlock()

	// Copy on write: a set handed out earlier is never changed under its reader.
	res := make(map[string]struct{}, len(s.unranked)+len(names))
	for n := range s.unranked {
		res[n] = struct{}{}
	}

	for _, n := range names {
		res[n] = struct{}{}
	}

	s.unranked = res
	s.loaded = true
	s.done = nil

	return nil
}

// agoraScanShape reads the unranked fields of a table's documents from their type schemas in Go.
// False when a document's schema is not one sjson.AgoraSchemaTypes reads: agoraQueryShape then
// answers.
//
// Why: SQLite's json_each parses every document's whole JSON text; a collection's documents share a
// few schemas, which AgoraSchemaTypes recognizes by their bytes and parses once. On the bench
// dataset (modernc.org/sqlite) the 100,000 comments took 4.7 s in SQL and the 128,000 marks 2.8 s,
// during which every query of the collection took the slow path of agoraTranslateWide; reading
// the rows alone takes 0.4 and 0.3 s.
func agoraScanShape(ctx context.Context, db *fsql.DB, table string) ([]string, bool, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %q`, metadata.DefaultColumn, table))
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}
	defer rows.Close()

	var hint sjson.AgoraSchemaHint

	seen := map[string]struct{}{}
	untyped := false
	record := func(name, typ string) {
		if typ == "" {
			// No "t" (SQL's NULL, left out) or an empty one (SQL keeps it): SQL tells them apart.
			untyped = true
			return
		}

		if !metadata.AgoraRankedType(typ) {
			seen[name] = struct{}{}
		}
	}

	for rows.Next() {
		var data sql.RawBytes
		if err = rows.Scan(&data); err != nil {
			return nil, false, lazyerrors.Error(err)
		}

		if !sjson.AgoraSchemaTypes(data, &hint, record) || untyped {
			return nil, false, nil
		}
	}

	if err = rows.Err(); err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}

	return names, true, nil
}

// agoraQueryShape reads the unranked fields of a table's documents in SQL.
func agoraQueryShape(ctx context.Context, db *fsql.DB, table string) ([]string, error) {
	q := fmt.Sprintf(
		`SELECT DISTINCT je.key FROM %q AS t, json_each(t.%s, '$."$s".p') AS je WHERE je.value->>'t' NOT IN %s`,
		table, metadata.DefaultColumn, metadata.AgoraRankedTypesSQL(),
	)

	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	var names []string

	for rows.Next() {
		var n string
		if err = rows.Scan(&n); err != nil {
			return nil, lazyerrors.Error(err)
		}

		names = append(names, n)
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return names, nil
}

// agoraSQLValue returns the rank and the SQL argument of a filter value, when SQL compares it as MongoDB does.
func agoraSQLValue(v any) (int, any, bool) {
	switch v := v.(type) {
	case int32:
		return metadata.AgoraRankNumber, int64(v), true
	case int64:
		if v > 1<<53 || v < -(1<<53) {
			return 0, nil, false
		}

		return metadata.AgoraRankNumber, v, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<53 {
			return 0, nil, false
		}

		return metadata.AgoraRankNumber, v, true
	case string:
		return metadata.AgoraRankString, v, true
	case types.ObjectID:
		return metadata.AgoraRankObjectID, fmt.Sprintf("%x", [12]byte(v)), true
	case bool:
		if v {
			return metadata.AgoraRankBool, int64(1), true
		}

		return metadata.AgoraRankBool, int64(0), true
	case time.Time:
		return metadata.AgoraRankDate, v.UnixMilli(), true
	case types.NullType:
		return metadata.AgoraRankNull, nil, true
	default:
		return 0, nil, false
	}
}

// agoraTranslation is a filter as SQL terms that must all hold.
type agoraTranslation struct {
	terms []string
	args  []any
	// exact is true when the terms select exactly the documents the filter matches.
	exact bool
	// wide is true while the collection's unranked fields are not known: then every field may hold
	// an array (or another unranked value), and each term also lets through rank 99.
	wide bool
	// fields are the ranked fields the terms are on (agoraPlanQuery adds AgoraRankedTerm for each).
	fields map[string]struct{}
}

// agoraTranslate translates filter. Terms only narrow: a condition it cannot translate exactly
// gives no term, or a wider one, and makes the translation inexact.
func agoraTranslate(filter *types.Document, unranked map[string]struct{}) *agoraTranslation {
	t := &agoraTranslation{exact: true}
	t.add(filter, unranked, 0)

	return t
}

// agoraTranslateWide translates filter for a collection whose unranked fields are not known yet:
// narrowing terms only.
func agoraTranslateWide(filter *types.Document) *agoraTranslation {
	t := &agoraTranslation{wide: true}
	t.add(filter, nil, 0)
	t.exact = false

	return t
}

func (t *agoraTranslation) add(filter *types.Document, unranked map[string]struct{}, depth int) {
	if depth > 8 {
		t.exact = false
		return
	}

	for _, k := range filter.Keys() {
		v, _ := filter.Get(k)

		switch {
		case k == "$comment":
			continue
		case k == "$and":
			docs, ok := agoraDocs(v)
			if !ok {
				t.exact = false
				continue
			}

			for _, d := range docs {
				t.add(d, unranked, depth+1)
			}

			continue
		case k == "$or":
			t.addOr(v, unranked, depth)
			continue
		case strings.HasPrefix(k, "$") || k == "":
			t.exact = false
			continue
		}

		if !metadata.AgoraPlainField.MatchString(k) {
			t.exact = false
			continue
		}

		if _, ok := unranked[k]; ok {
			t.exact = false
			t.addUnranked(k, v)

			continue
		}

		t.addField(k, v)
	}
}

// addOr translates {$or: [...]} when every branch translates exactly; otherwise it adds nothing.
func (t *agoraTranslation) addOr(v any, unranked map[string]struct{}, depth int) {
	docs, ok := agoraDocs(v)
	if !ok || len(docs) == 0 {
		t.exact = false
		return
	}

	branches := make([]string, 0, len(docs))

	var args []any

	for _, d := range docs {
		b := &agoraTranslation{exact: true, wide: t.wide}
		b.add(d, unranked, depth+1)

		if !b.exact || len(b.terms) == 0 {
			t.exact = false
			return
		}

		branches = append(branches, "("+strings.Join(b.terms, " AND ")+")")
		args = append(args, b.args...)
	}

	t.terms = append(t.terms, "("+strings.Join(branches, " OR ")+")")
	t.args = append(t.args, args...)

	t.addHull(docs, unranked)
}

// agoraBound is a bound a branch of an $or puts on a field.
type agoraBound struct {
	rank         int
	upper, lower any // SQL arguments; nil when the branch does not bound that side
	upperStrict  bool
	lowerStrict  bool
}

// addHull adds, for a field that every branch of an exact $or bounds on one side with values of
// one rank, the loosest of those bounds as a term of its own. It is implied by the $or, so the
// translation stays exact; SQLite can seek on it in an index, where the $or alone made it merge
// one index search per branch and sort again. Keyset pages have that shape:
// {$or: [{f: {$lt: v}}, {f: v, _id: {$lt: id}}]} gets (rank(f) = r AND value(f) <= v).
func (t *agoraTranslation) addHull(docs []*types.Document, unranked map[string]struct{}) {
	if t.wide {
		return
	}

	var hull map[string]*agoraBound

	for i, d := range docs {
		bounds := agoraBranchBounds(d, unranked)

		if i == 0 {
			hull = bounds
			continue
		}

		for f, h := range hull {
			b, ok := bounds[f]
			if !ok || b.rank != h.rank {
				delete(hull, f)
				continue
			}

			h.upper, h.upperStrict = agoraLooser(h.upper, h.upperStrict, b.upper, b.upperStrict, 1)
			h.lower, h.lowerStrict = agoraLooser(h.lower, h.lowerStrict, b.lower, b.lowerStrict, -1)
		}
	}

	fields := make([]string, 0, len(hull))
	for f := range hull {
		fields = append(fields, f)
	}

	slices.Sort(fields)

	for _, f := range fields {
		h := hull[f]
		rank, value := metadata.AgoraRankExpr(f), metadata.AgoraValueExpr(f)

		if h.upper != nil {
			op := map[bool]string{true: "<", false: "<="}[h.upperStrict]
			t.terms = append(t.terms, fmt.Sprintf("(%s = %d AND %s %s ?)", rank, h.rank, value, op))
			t.args = append(t.args, h.upper)
		}

		if h.lower != nil {
			op := map[bool]string{true: ">", false: ">="}[h.lowerStrict]
			t.terms = append(t.terms, fmt.Sprintf("(%s = %d AND %s %s ?)", rank, h.rank, value, op))
			t.args = append(t.args, h.lower)
		}
	}
}

// agoraBranchBounds returns the bounds one $or branch puts on its ranked top-level fields:
// an equality bounds both sides, $lt/$lte the upper one, $gt/$gte the lower one.
func agoraBranchBounds(d *types.Document, unranked map[string]struct{}) map[string]*agoraBound {
	res := map[string]*agoraBound{}

	for _, f := range d.Keys() {
		if _, ok := unranked[f]; ok || !metadata.AgoraPlainField.MatchString(f) {
			continue
		}

		v, _ := d.Get(f)

		ops, ok := v.(*types.Document)
		if !ok {
			ops = types.MakeDocument(1)
			ops.Set("$eq", v)
		}

		b := new(agoraBound)
		usable := true

		for _, op := range ops.Keys() {
			arg, _ := ops.Get(op)

			r, a, ok := agoraSQLValue(arg)
			if !ok || r == metadata.AgoraRankNull || (b.rank != 0 && b.rank != r) {
				usable = false
				break
			}

			b.rank = r

			switch op {
			case "$eq":
				b.upper, b.lower = a, a
			case "$lt", "$lte":
				b.upper, b.upperStrict = a, op == "$lt"
			case "$gt", "$gte":
				b.lower, b.lowerStrict = a, op == "$gt"
			default:
				usable = false
			}
		}

		if usable && b.rank != 0 {
			res[f] = b
		}
	}

	return res
}

// agoraLooser returns the looser of two bounds of one rank (dir 1: upper bounds, -1: lower ones);
// nil, when either side is unbounded.
func agoraLooser(a any, aStrict bool, b any, bStrict bool, dir int) (any, bool) {
	if a == nil || b == nil {
		return nil, false
	}

	c := agoraCompareSQL(a, b)

	switch {
	case c*dir > 0:
		return a, aStrict
	case c*dir < 0:
		return b, bStrict
	default:
		return a, aStrict && bStrict
	}
}

// agoraCompareSQL compares two SQL arguments of one rank (int64, float64 or string).
func agoraCompareSQL(a, b any) int {
	if as, ok := a.(string); ok {
		bs, _ := b.(string)
		return strings.Compare(as, bs)
	}

	af, bf := agoraFloat(a), agoraFloat(b)

	switch {
	case af < bf:
		return -1
	case af > bf:
		return 1
	default:
		return 0
	}
}

// agoraFloat returns a numeric SQL argument as a float64 (exact: agoraSQLValue keeps |v| <= 2^53).
func agoraFloat(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	default:
		return 0
	}
}

// addField translates the condition v on the ranked field f.
func (t *agoraTranslation) addField(f string, v any) {
	rank, value := metadata.AgoraRankExpr(f), metadata.AgoraValueExpr(f)

	if !t.wide {
		if t.fields == nil {
			t.fields = map[string]struct{}{}
		}

		t.fields[f] = struct{}{}
	}

	ops, ok := v.(*types.Document)
	if !ok {
		ops = types.MakeDocument(1)
		ops.Set("$eq", v)
	} else if ops.Len() == 0 || !strings.HasPrefix(ops.Keys()[0], "$") {
		// An embedded document: equal only to the same document, which has no rank.
		t.exact = false
		return
	}

	for _, op := range ops.Keys() {
		arg, _ := ops.Get(op)

		switch op {
		case "$eq", "$in":
			values, ok := agoraEqualValues(op, arg)
			if !ok {
				t.exact = false
				continue
			}

			term, args, ok := agoraEqualTerm(rank, value, values)
			if !ok {
				t.exact = false
				continue
			}

			if f == "_id" {
				// _id is never an array: in wide mode the term on FerretDB's _id index narrows alone.
				if t.addIDIndexTerm(values) && t.wide {
					continue
				}
			}

			t.addTerm(rank, term, args)

		case "$gt", "$gte", "$lt", "$lte":
			r, a, ok := agoraSQLValue(arg)
			if !ok || r == metadata.AgoraRankNull {
				t.exact = false
				continue
			}

			sqlOp := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]
			t.addTerm(rank, fmt.Sprintf("(%s = %d AND %s %s ?)", rank, r, value, sqlOp), []any{a})

		default:
			t.exact = false
		}
	}
}

// addTerm adds the term of a ranked field; in wide mode it also lets through the field's unranked
// values (rank 99), arrays among them, whose elements the condition may match.
func (t *agoraTranslation) addTerm(rank, term string, args []any) {
	if t.wide {
		term = fmt.Sprintf("(%s OR %s = %d)", term, rank, metadata.AgoraRankOther)
		t.exact = false
	}

	t.terms = append(t.terms, term)
	t.args = append(t.args, args...)
}

// agoraEqualTerm is the term of a field equal to one of values (ranked scalars), grouped by rank.
func agoraEqualTerm(rank, value string, values []any) (string, []any, bool) {
	byRank := map[int][]any{}
	var order []int

	for _, v := range values {
		r, a, ok := agoraSQLValue(v)
		if !ok {
			return "", nil, false
		}

		if _, seen := byRank[r]; !seen {
			order = append(order, r)
		}

		byRank[r] = append(byRank[r], a)
	}

	var alts []string
	var args []any

	for _, r := range order {
		if r == metadata.AgoraRankNull {
			alts = append(alts, fmt.Sprintf("%s = %d", rank, r))
			continue
		}

		placeholders, vs := agoraInList(byRank[r])
		alts = append(alts, fmt.Sprintf("(%s = %d AND %s IN (%s))", rank, r, value, placeholders))
		args = append(args, vs...)
	}

	if len(alts) == 1 {
		return alts[0], args, true
	}

	return "(" + strings.Join(alts, " OR ") + ")", args, true
}

// addUnranked narrows an equality on a field that may hold arrays: the value itself or an array
// element (json_each yields a scalar once and an array's elements). A narrowing only: json_each
// does not tell a date from a number or an ObjectId from a string, FerretDB filters again.
func (t *agoraTranslation) addUnranked(f string, v any) {
	switch v.(type) {
	case string, int32:
	default:
		return
	}

	_, a, _ := agoraSQLValue(v)
	t.terms = append(t.terms, fmt.Sprintf(
		"EXISTS (SELECT 1 FROM json_each(%s, '$.%s') WHERE value = ?)", metadata.DefaultColumn, f,
	))
	t.args = append(t.args, a)
}

// agoraDocs returns the documents of a $and / $or array.
func agoraDocs(v any) ([]*types.Document, bool) {
	arr, ok := v.(*types.Array)
	if !ok {
		return nil, false
	}

	docs := make([]*types.Document, 0, arr.Len())

	for i := 0; i < arr.Len(); i++ {
		el, _ := arr.Get(i)

		d, ok := el.(*types.Document)
		if !ok {
			return nil, false
		}

		docs = append(docs, d)
	}

	return docs, true
}

// agoraOrderBy returns the ORDER BY clause of sort, or "" when a key is not a ranked top-level field.
func agoraOrderBy(sort *types.Document, unranked map[string]struct{}) string {
	if sort.Len() == 0 {
		return ""
	}

	cols := make([]string, 0, 2*sort.Len())

	for _, k := range sort.Keys() {
		if !metadata.AgoraPlainField.MatchString(k) {
			return ""
		}

		if _, ok := unranked[k]; ok {
			return ""
		}

		v, _ := sort.Get(k)
		dir := ""

		switch v {
		case int64(1):
		case int64(-1):
			dir = " DESC"
		default:
			return ""
		}

		cols = append(cols, metadata.AgoraRankExpr(k)+dir, metadata.AgoraValueExpr(k)+dir)
	}

	return " ORDER BY " + strings.Join(cols, ", ")
}

// agoraPlan is how a query runs.
type agoraPlan struct {
	where   string
	args    []any
	orderBy string // "" for FerretDB's path (sorted in Go)
	limit   int64  // 0 when LIMIT is not pushed
	// filterExact reports a filter translated exactly.
	filterExact bool
}

// Path names the plan in explain output.
func (p *agoraPlan) Path() string {
	switch {
	case p.orderBy != "" && p.limit > 0:
		return "agora: SQL sort and limit"
	case p.orderBy != "":
		return "agora: SQL sort, read until the page is full"
	case p.where != "":
		return "agora: SQL filter, sorted in FerretDB"
	default:
		return "ferretdb: whole table, sorted in FerretDB"
	}
}

// agoraPlanQuery plans a query: filter terms always, ORDER BY when sort is given and servable,
// LIMIT when also the filter is exact.
func agoraPlanQuery(
	ctx context.Context, db *fsql.DB, dbName, table string, filter, sort *types.Document, limit int64,
) (*agoraPlan, error) {
	p := new(agoraPlan)

	if agoraPushdownOff {
		return p, nil
	}

	if sort.Len() == 0 {
		if term, args, ok := agoraIDLookup(filter); ok {
			p.where, p.args = " WHERE "+term, args
			return p, nil
		}
	}

	unranked, known := agoraUnranked(db, dbName, table)

	var t *agoraTranslation
	if known {
		t = agoraTranslate(filter, unranked)
	} else {
		t = agoraTranslateWide(filter)
		sort = nil
	}

	p.filterExact = t.exact
	p.orderBy = agoraOrderBy(sort, unranked)

	// Each field the query filters or sorts on never held an unranked value (known is true), so
	// "it has a rank" holds in every row: as a term of its own it lets SQLite use the partial
	// indexes led by the field (metadata.AgoraRankedTerm).
	terms := t.terms
	if known {
		fields := make([]string, 0, len(t.fields)+sort.Len())
		for f := range t.fields {
			fields = append(fields, f)
		}

		if p.orderBy != "" {
			for _, k := range sort.Keys() {
				if _, ok := t.fields[k]; !ok {
					fields = append(fields, k)
				}
			}
		}

		slices.Sort(fields)

		for _, f := range slices.Compact(fields) {
			terms = append(terms, metadata.AgoraRankedTerm(f))
		}
	}

	if len(terms) > 0 {
		p.where = " WHERE " + strings.Join(terms, " AND ")
		p.args = t.args
	}

	if p.orderBy != "" && t.exact && limit > 0 {
		p.limit = limit
	}

	return p, nil
}

// agoraSortKeys is a parsed sort document, for the check of returned documents.
type agoraSortKeys struct {
	fields []string
	orders []types.SortType
}

func agoraParseSort(sort *types.Document) *agoraSortKeys {
	k := new(agoraSortKeys)

	for _, f := range sort.Keys() {
		v, _ := sort.Get(f)
		o := types.Ascending

		if v == int64(-1) {
			o = types.Descending
		}

		k.fields = append(k.fields, f)
		k.orders = append(k.orders, o)
	}

	return k
}

// inOrder reports whether doc may follow prev (nil for the first) in sort order, and has ranked sort fields.
func (k *agoraSortKeys) inOrder(prev, doc *types.Document) bool {
	for i, f := range k.fields {
		v, err := doc.Get(f)
		if err != nil {
			v = types.Null
		}

		if !agoraRanked(v) {
			return false
		}

		if prev == nil {
			continue
		}

		pv, err := prev.Get(f)
		if err != nil {
			pv = types.Null
		}

		switch types.CompareOrderForSort(pv, v, k.orders[i]) {
		case types.Less:
			return !k.unrankedFrom(doc, i+1)
		case types.Greater:
			return false
		case types.Equal:
		}
	}

	return true
}

// unrankedFrom reports whether a sort field from the i-th on is unranked.
func (k *agoraSortKeys) unrankedFrom(doc *types.Document, i int) bool {
	for _, f := range k.fields[i:] {
		if v, err := doc.Get(f); err == nil && !agoraRanked(v) {
			return true
		}
	}

	return false
}

// agoraSortedQuery runs a planned query with its ORDER BY (p.orderBy != "").
func agoraSortedQuery(
	ctx context.Context, db *fsql.DB, selectClause string, p *agoraPlan, req *common.AgoraSortRequest,
) (*backends.QueryResult, error) {
	keys := agoraParseSort(req.Sort)
	q := selectClause + p.where + p.orderBy

	if p.limit == 0 {
		rows, err := db.AgoraQueryContext(ctx, q, p.args...)
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		req.Sorted = true

		return &backends.QueryResult{Iter: &agoraCheckedIterator{iter: newQueryIterator(ctx, rows, false), keys: keys}}, nil
	}

	args := append(slices.Clone(p.args), p.limit)

	rows, err := db.AgoraQueryContext(ctx, q+" LIMIT ?", args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	docs, err := iterator.ConsumeValues(newQueryIterator(ctx, rows, false))
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	var prev *types.Document

	for _, doc := range docs {
		if !keys.inOrder(prev, doc) {
			// Not reachable while agoraShapes is right; FerretDB's path then gives the answer.
			rows, err = db.AgoraQueryContext(ctx, selectClause+p.where, p.args...)
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			return &backends.QueryResult{Iter: newQueryIterator(ctx, rows, false)}, nil
		}

		prev = doc
	}

	req.Sorted = true

	return &backends.QueryResult{Iter: iterator.Values(iterator.ForSlice(docs))}, nil
}

// agoraCheckedIterator passes on the documents of a sorted query, checking each (agoraSortKeys.inOrder).
type agoraCheckedIterator struct {
	iter types.DocumentsIterator
	keys *agoraSortKeys
	prev *types.Document
}

// Next implements iterator.Interface.
func (it *agoraCheckedIterator) Next() (struct{}, *types.Document, error) {
	_, doc, err := it.iter.Next()
	if err != nil {
		return struct{}{}, nil, err
	}

	if !it.keys.inOrder(it.prev, doc) {
		return struct{}{}, nil, lazyerrors.Errorf("agora: sorted read: document %v out of order", doc.Keys())
	}

	it.prev = doc

	return struct{}{}, doc, nil
}

// Close implements iterator.Interface.
func (it *agoraCheckedIterator) Close() {
	it.iter.Close()
}

// agoraPlan plans a query of the collection for a find's sort request (nil for none); sortable is
// false when FerretDB's own sort ($natural) applies.
func (c *collection) agoraPlan(
	ctx context.Context, db *fsql.DB, meta *metadata.Collection, filter *types.Document,
	req *common.AgoraSortRequest, sortable bool,
) (*agoraPlan, error) {
	var sort *types.Document
	var limit int64

	if req != nil && sortable && !meta.Capped() {
		sort, limit = req.Sort, req.Limit
	}

	return agoraPlanQuery(ctx, db, c.dbName, meta.TableName, filter, sort, limit)
}

// agoraIDLookup returns the only term of an unsorted lookup by _id alone ({_id: v}, {_id: {$eq: v}},
// {_id: {$in: [..]}}): the term on FerretDB's _id index (addIDIndexTerm). It narrows to the right
// rows (a date or another type with the same JSON text may come along), and FerretDB's handlers
// filter every returned document exactly, as they do on any plan that is not exact (filterExact).
//
// Why: the ranked terms agoraTranslate adds beside it, which make the plan exact, made SQLite parse
// the found document's whole JSON text: ~90 of ~120 µs of looking up one topic of the bench dataset
// (modernc.org/sqlite). Lookups by _id are the most frequent query under Agora's bench/load.js, and
// exactness buys them nothing: without a sort there is no LIMIT in SQL and no raw read.
func agoraIDLookup(filter *types.Document) (string, []any, bool) {
	if filter.Len() != 1 || filter.Keys()[0] != "_id" {
		return "", nil, false
	}

	op := "$eq"
	arg, _ := filter.Get("_id")

	if ops, ok := arg.(*types.Document); ok {
		if ops.Len() != 1 {
			return "", nil, false
		}

		op = ops.Keys()[0]
		arg, _ = ops.Get(op)
	}

	values, ok := agoraEqualValues(op, arg)
	if !ok {
		return "", nil, false
	}

	t := new(agoraTranslation)
	if !t.addIDIndexTerm(values) {
		return "", nil, false
	}

	return t.terms[0], t.args, true
}

// agoraEqualValues returns the values an equality operator ($eq or $in) matches; false for another
// operator, or an $in that is not an array of 1 to 1,000 values.
func agoraEqualValues(op string, arg any) ([]any, bool) {
	switch op {
	case "$eq":
		return []any{arg}, true
	case "$in":
		arr, ok := arg.(*types.Array)
		if !ok || arr.Len() == 0 || arr.Len() > 1000 {
			return nil, false
		}

		values := make([]any, arr.Len())
		for i := range values {
			values[i], _ = arr.Get(i)
		}

		return values, true
	default:
		return nil, false
	}
}

// addIDIndexTerm adds a term on the JSON text of _id, which FerretDB's unique _id index is built on,
// so that a lookup by _id uses it (the ranked term beside it keeps the match exact).
func (t *agoraTranslation) addIDIndexTerm(values []any) bool {
	texts := make([]any, 0, len(values)+1)

	for _, v := range values {
		s, ok := agoraJSONText(v)
		if !ok {
			return false
		}

		texts = append(texts, s)

		// A stored double -0 is written "-0" and equals 0.
		if s == "0" {
			texts = append(texts, "-0")
		}
	}

	placeholders, texts := agoraInList(texts)
	t.terms = append(t.terms, fmt.Sprintf("%s IN (%s)", metadata.IDColumn, placeholders))
	t.args = append(t.args, texts...)

	return true
}

// agoraInList returns the placeholders of an IN list of values, and its arguments: the values, the
// last one repeated up to a power of two, so that a query's text (which the readers of patch 0011
// keep a statement for) comes in a few lengths rather than one per number of values.
func agoraInList(values []any) (string, []any) {
	if len(values) == 0 {
		return "", nil
	}

	n := 1
	for n < len(values) {
		n *= 2
	}

	args := slices.Grow(slices.Clone(values), n-len(values))
	for len(args) < n {
		args = append(args, values[len(values)-1])
	}

	return strings.TrimSuffix(strings.Repeat("?, ", n), ", "), args
}
