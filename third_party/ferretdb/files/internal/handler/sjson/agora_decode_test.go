// Tests of Agora's decoder (agora_decode.go) against FerretDB's own (unmarshalFerretDB, patch 0002).

package sjson

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraStoredDocuments are documents as the backend stores them: every type it stores, the strings
// and numbers whose JSON text is tricky, nesting, and Agora's own shapes.
func agoraStoredDocuments() []*types.Document {
	oid := types.ObjectID{0x65, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6, 0x07, 0x18, 0x29, 0x3a, 0x4b}
	strs := []string{
		"", "plain text", "<p>a < b && c > d</p>", `say "hi" \ back\slash /slash`,
		"tab\tnew\nline\rback\bform\f", "nul\x00inside", "\x01\x1f", "del\x7f", "café naïve", "日本語",
		"smile 😀 and 👍🏽", "line\u2028para\u2029", "already \ufffd here", `\u0041 is not A`,
		strings.Repeat("long text ", 500),
	}

	strDoc := types.MakeDocument(len(strs) + 1)
	strDoc.Set("_id", int32(1))

	for i, s := range strs {
		strDoc.Set("s"+string(rune('a'+i)), s)
	}

	return []*types.Document{
		must.NotFail(types.NewDocument()),
		strDoc,
		must.NotFail(types.NewDocument(
			"_id", int32(2),
			"i0", int32(0), "iNeg", int32(-1), "iMax", int32(math.MaxInt32), "iMin", int32(math.MinInt32),
			"l", int64(5), "lMax", int64(math.MaxInt64), "lMin", int64(math.MinInt64), "l53", int64(1<<53+1),
			"d5", float64(5), "d0", float64(0), "dNeg0", math.Copysign(0, -1), "dTenth", 0.1, "dHuge", 1e300,
			"dMax", math.MaxFloat64, "dTiny", 5e-324, "dE21", 1e21, "dThird", 1.0/3,
		)),
		must.NotFail(types.NewDocument(
			"_id", oid,
			"yes", true, "no", false, "nothing", types.Null, "oid", oid,
			"epoch", time.UnixMilli(0).UTC(), "before1970", time.UnixMilli(-14182940000).UTC(),
			"bin", types.Binary{Subtype: types.BinaryGeneric, B: []byte{0, 1, 250, 255}},
			"uuid", types.Binary{Subtype: types.BinaryUUID, B: make([]byte, 16)},
			"regex", types.Regex{Pattern: `^a.*[b"\\]$`, Options: "im"},
			"ts", types.Timestamp(1_700_000_000<<32|7),
			"emptyDoc", must.NotFail(types.NewDocument()),
			"emptyArray", must.NotFail(types.NewArray()),
			"nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument(
				"b", must.NotFail(types.NewDocument("c", "deep", "n", int32(1))))))),
			"mixed", must.NotFail(types.NewArray(int32(1), "two", 3.5, types.Null, true,
				must.NotFail(types.NewDocument("four", int32(4), "inner", must.NotFail(types.NewArray(int32(5))))))),
			"key with space", "v", "ключ <&>", "odd key",
			"oddKeys", must.NotFail(types.NewDocument(`a"b`, int32(1), `c\d`, int32(2), "e<f>", int32(3))),
		)),
		must.NotFail(types.NewDocument(
			"_id", "string id <&>", "parentId", types.Null, "tags", must.NotFail(types.NewArray("a", "b")),
			"labelWeights", must.NotFail(types.NewDocument("noise", int32(0))),
		)),
	}
}

// TestAgoraDecodeStoredDocuments: every stored document decodes through Agora's decoder (none is
// left to the fallback) to exactly what FerretDB's own Unmarshal returns.
func TestAgoraDecodeStoredDocuments(t *testing.T) {
	t.Parallel()

	for _, doc := range agoraStoredDocuments() {
		b, err := Marshal(doc)
		require.NoError(t, err)

		expected, err := unmarshalFerretDB(b)
		require.NoError(t, err)
		testutil.AssertEqual(t, doc, expected)

		actual, ok := agoraUnmarshal(b)
		require.True(t, ok, "Agora's decoder should handle %s", b)
		testutil.AssertEqual(t, expected, actual)

		viaUnmarshal, err := Unmarshal(b)
		require.NoError(t, err)
		testutil.AssertEqual(t, expected, viaUnmarshal)
	}
}

// TestAgoraDecodeOddInput: on input Marshal never writes, both decoders agree. Agora's decoder
// declines most of it (FerretDB's code then decides, errors included); a schema that is not first
// it reorders, and a value it cannot decode itself (a surrogate pair) it hands to FerretDB's
// single-value code.
func TestAgoraDecodeOddInput(t *testing.T) {
	t.Parallel()

	for name, tc := range map[string]struct {
		data    string
		handled bool
	}{
		"schema not first":    {`{"a":1,"$s":{"p":{"a":{"t":"int"}},"$k":["a"]}}`, true},
		"surrogate pair":      {`{"$s":{"p":{"a":{"t":"string"}},"$k":["a"]},"a":"\ud83d\ude00"}`, true},
		"leading whitespace":  {` {"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`, true},
		"trailing whitespace": {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1} `, false},
		"out of order":        {`{"$s":{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","b"]},"b":2,"a":1}`, false},
		"duplicate key":       {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,"a":2}`, false},
		"duplicate schema":    {`{"$s":{"p":{},"$k":[]},"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`, false},
		"control character":   {"{\"$s\":{\"p\":{\"a\":{\"t\":\"string\"}},\"$k\":[\"a\"]},\"a\":\"x\x01\"}", false},
		"int out of range":    {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":2147483648}`, false},
		"int with exponent":   {`{"$s":{"p":{"a":{"t":"long"}},"$k":["a"]},"a":1e3}`, false},
		"double leading +":    {`{"$s":{"p":{"a":{"t":"double"}},"$k":["a"]},"a":+1}`, false},
		"missing field":       {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]}}`, false},
		"no schema":           {`{"a":1}`, false},
		"trailing data":       {`{"$s":{"p":{},"$k":[]}} {}`, false},
		"not an object":       {`[1]`, false},
		"bad object id":       {`{"$s":{"p":{"a":{"t":"objectId"}},"$k":["a"]},"a":"zz"}`, false},
		"array length":        {`{"$s":{"p":{"a":{"t":"array","i":[{"t":"int"}]}},"$k":["a"]},"a":[1,2]}`, false},
		"repeated schema key": {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a","a"]},"a":1}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			data := []byte(tc.data)
			agora, handled := agoraUnmarshal(data)
			assert.Equal(t, tc.handled, handled)

			expected, expectedErr := unmarshalFerretDB(data)
			actual, actualErr := Unmarshal(data)
			assert.Equal(t, expectedErr == nil, actualErr == nil)

			if expectedErr == nil {
				testutil.AssertEqual(t, expected, actual)
			}

			if handled {
				require.NoError(t, expectedErr)
				testutil.AssertEqual(t, expected, agora)
			}
		})
	}
}

// TestAgoraDecodeSchemaCache: documents that share a schema share its parsed form, and the cache
// remembers a schema it cannot use, so that every such document goes to FerretDB's code.
func TestAgoraDecodeSchemaCache(t *testing.T) {
	a := []byte(`{"$s":{"p":{"x":{"t":"int"}},"$k":["x"]},"x":1}`)
	b := []byte(`{"$s":{"p":{"x":{"t":"int"}},"$k":["x"]},"x":2}`)

	d1, ok := agoraUnmarshal(a)
	require.True(t, ok)
	d2, ok := agoraUnmarshal(b)
	require.True(t, ok)
	assert.Equal(t, int32(1), must.NotFail(d1.Get("x")))
	assert.Equal(t, int32(2), must.NotFail(d2.Get("x")))

	sch, ok := agoraSchema([]byte(`{"p":{"x":{"t":"int"}},"$k":["x"]}`))
	require.True(t, ok)
	assert.Equal(t, []string{"x"}, sch.Keys)

	_, ok = agoraSchema([]byte(`{"p":{"x":{"t":"int"}},"$k":["x","x"]}`))
	assert.False(t, ok)
	_, ok = agoraSchema([]byte(`{"p":{"x":{"t":"int"}},"$k":["x","x"]}`)) // now from the cache
	assert.False(t, ok)
}

// FuzzAgoraDecode compares Agora's decoder with FerretDB's own on arbitrary input: whatever Agora's
// decoder accepts, FerretDB's must accept too and decode to the same types, values and field order.
// `go test` runs the seeds; scripts/ferretdb-check.js --fuzztime=<d> fuzzes for that long.
func FuzzAgoraDecode(f *testing.F) {
	for _, doc := range agoraStoredDocuments() {
		f.Add(must.NotFail(Marshal(doc)))
	}

	for _, s := range []string{
		`{"$s":{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","b"]},"b":2,"a":1}`,
		`{"$s":{"p":{"a":{"t":"string"}},"$k":["a"]},"a":"\u00e9\n\/"}`,
		`{"$s":{"p":{"a":{"t":"double"}},"$k":["a"]},"a":-0.0e-0}`,
		`{"$s":{"p":{"a":{"t":"date"}},"$k":["a"]},"a":-62135596800000}`,
		` { "$s" : { "p" : { "a" : { "t" : "bool" } } , "$k" : [ "a" ] } , "a" : true } `,
		`{"$s":{"p":{"a":{"t":"object","$s":{"p":{"b":{"t":"long"}},"$k":["b"]}}},"$k":["a"]},"a":{"b":9007199254740993}}`,
		`{"$s":{"p":{"a":{"t":"array","i":[{"t":"string"},{"t":"null"}]}},"$k":["a"]},"a":["x",null]}`,
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		actual, ok := agoraUnmarshal(data)
		if !ok {
			return
		}

		expected, err := unmarshalFerretDB(data)
		require.NoError(t, err, "Agora's decoder accepted what FerretDB's rejects: %q", data)
		testutil.AssertEqual(t, expected, actual)
	})
}
