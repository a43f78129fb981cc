// Agora's filter pushdown for the SQLite backend (third_party/ferretdb/README.md,
// docs/embedded-database.md).
//
// Why: as published, the backend hands SQLite only a filter that is exactly {_id: <string|ObjectId>},
// so every other query reads and decodes every row of the collection in Go, and the indexes it
// creates are never used.
//
// What: for each top-level equality ({f: v}, {f: {$eq: v}}, {f: {$in: [..]}}) on a plain field name
// with a plain scalar value, also inside a top-level $and, a WHERE term on exactly the expression
// FerretDB's indexes are built on (_ferretdb_sjson->"f"), so SQLite uses them.
//
// Why it cannot lose results: the term only narrows what SQLite returns; FerretDB's handlers still
// apply the whole filter to every returned document, so the term must only never exclude a match.
// It therefore
//   - also lets through any row whose field is an array ({f: v} matches array elements: the JSON text
//     of an array starts with "[", a range on the same index);
//   - compares JSON text as the backend stores it, and only for values whose text cannot differ
//     between Go's encoder and SQLite's rendering: integers (and integral doubles) below 2^53 and
//     strings of printable ASCII without '"', '\', '<', '>', '&'; anything else is not pushed down;
//   - skips null (it matches missing fields), documents, arrays, regexes, dates, operators other than
//     $eq and $in, and booleans (they hardly narrow, and walking an index over most of a table is
//     slower than reading the table).
// agora_pushdown_test.go checks that on a real SQLite backend against FerretDB's own matcher.

package sqlite

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/FerretDB/FerretDB/internal/types"
)

// agoraPushdownOff turns the pushdown off when the environment has AGORA_FERRETDB_PUSHDOWN=off: every
// query then reads the whole table, as FerretDB did. Agora's tests use it to show that no answer
// depends on the pushdown (the launcher passes its environment on to FerretDB).
var agoraPushdownOff = os.Getenv("AGORA_FERRETDB_PUSHDOWN") == "off"

// agoraJSONText returns the JSON text the backend stores for v, for values where that text is unambiguous.
func agoraJSONText(v any) (string, bool) {
	switch v := v.(type) {
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		if v > 1<<53 || v < -(1<<53) {
			return "", false
		}

		return strconv.FormatInt(v, 10), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || math.Abs(v) >= 1<<53 || (v == 0 && math.Signbit(v)) {
			return "", false
		}

		return strconv.FormatInt(int64(v), 10), true
	case string:
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return "", false
			}
		}

		return "\"" + v + "\"", true
	case types.ObjectID:
		return fmt.Sprintf(`"%x"`, [12]byte(v)), true
	default:
		return "", false
	}
}
