// Code added by Agora's build of FerretDB (src/db/ferretdb-pushdown.ts); see there for why.

package sqlite

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
)

var agoraPlainField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// agoraWhereClause returns a WHERE clause that only narrows the rows to those that may match filter.
func agoraWhereClause(filter *types.Document) (string, []any) {
	terms, args := agoraTerms(filter, 0)
	if len(terms) == 0 {
		return "", nil
	}

	return " WHERE " + strings.Join(terms, " AND "), args
}

// agoraTerms returns the narrowing terms of filter: one per pushable top-level condition, and those
// of every document of a top-level $and (each of them must match too).
func agoraTerms(filter *types.Document, depth int) ([]string, []any) {
	if filter == nil || depth > 8 {
		return nil, nil
	}

	var terms []string
	var args []any

	for _, k := range filter.Keys() {
		if k == "$and" {
			v, _ := filter.Get(k)
			if arr, ok := v.(*types.Array); ok {
				for i := 0; i < arr.Len(); i++ {
					el, _ := arr.Get(i)
					if d, ok := el.(*types.Document); ok {
						t, a := agoraTerms(d, depth+1)
						terms = append(terms, t...)
						args = append(args, a...)
					}
				}
			}

			continue
		}

		if !agoraPlainField.MatchString(k) {
			continue
		}

		v, _ := filter.Get(k)

		var values []string

		if d, ok := v.(*types.Document); ok {
			if d.Len() != 1 {
				continue
			}

			op := d.Keys()[0]
			arg, _ := d.Get(op)

			switch op {
			case "$eq":
				if s, ok := agoraJSONText(arg); ok {
					values = []string{s}
				}
			case "$in":
				arr, ok := arg.(*types.Array)
				if !ok || arr.Len() == 0 || arr.Len() > 1000 {
					continue
				}

				all := true

				for i := 0; i < arr.Len(); i++ {
					el, _ := arr.Get(i)

					s, ok := agoraJSONText(el)
					if !ok {
						all = false
						break
					}

					values = append(values, s)
				}

				if !all {
					values = nil
				}
			}
		} else if s, ok := agoraJSONText(v); ok {
			values = []string{s}
		}

		if len(values) == 0 {
			continue
		}

		expr := fmt.Sprintf("%s->%q", metadata.DefaultColumn, k)
		placeholders := strings.TrimSuffix(strings.Repeat("?, ", len(values)), ", ")
		terms = append(terms, fmt.Sprintf("(%[1]s IN (%[2]s) OR (%[1]s >= '[' AND %[1]s < '\\'))", expr, placeholders))

		for _, s := range values {
			args = append(args, s)
		}
	}

	return terms, args
}

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
