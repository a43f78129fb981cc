// Tests of Agora's transcoder (agora_bson.go) against FerretDB's path: Unmarshal (the original
// decoder, unmarshalFerretDB), the exclusion, then the conversion to wirebson and its encoding.

package sjson

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraExpectedBSON is FerretDB's answer for a stored document: decoded by the original code, the
// excluded top-level fields removed, converted and encoded; false when the original rejects it.
func agoraExpectedBSON(t *testing.T, data []byte, exclude []string) ([]byte, *types.Document, bool) {
	t.Helper()

	doc, err := unmarshalFerretDB(data)
	if err != nil {
		return nil, nil, false
	}

	projected := doc.DeepCopy()
	for _, k := range exclude {
		projected.Remove(k)
	}

	d, err := bson.FromDocument(projected)
	require.NoError(t, err)

	raw, err := d.Encode()
	require.NoError(t, err)

	return raw, doc, true
}

// agoraHintPrimers are documents whose schema a hint may hold when the next document comes: one
// of the shape of FuzzAgoraBSON's seeds, and one whose schema text is a prefix of theirs.
var agoraHintPrimers = []string{
	`{"$s":{"p":{"_id":{"t":"int"},"b":{"t":"string"}},"$k":["_id","b"]},"_id":1,"b":"x"}`,
	`{"$s":{"p":{"_id":{"t":"int"}},"$k":["_id"]},"_id":1}`,
}

// agoraCheckBSON compares AgoraBSON with FerretDB's path for data, when AgoraBSON handles it:
// without a schema hint, with a hint that holds another document's schema, and with a hint that
// holds data's own (AgoraSchemaHint); all three must agree on whether data is handled.
func agoraCheckBSON(t *testing.T, data []byte, exclude, want []string) bool {
	t.Helper()

	ok := agoraCheckBSONHint(t, data, exclude, want, nil)

	for _, primer := range agoraHintPrimers {
		hint := new(AgoraSchemaHint)
		_, _, primed := AgoraBSON(nil, []byte(primer), nil, nil, hint)
		require.True(t, primed)

		assert.Equal(t, ok, agoraCheckBSONHint(t, data, exclude, want, hint), "primed with %s", primer)
		assert.Equal(t, ok, agoraCheckBSONHint(t, data, exclude, want, hint), "again, after %s", primer)
	}

	return ok
}

// agoraCheckBSONHint is agoraCheckBSON with the given hint.
func agoraCheckBSONHint(t *testing.T, data []byte, exclude, want []string, hint *AgoraSchemaHint) bool {
	t.Helper()

	prefix := []byte("prefix")

	actual, wanted, ok := AgoraBSON(prefix, data, exclude, want, hint)
	if !ok {
		assert.Equal(t, prefix, actual, "a declined document leaves dst as it was")
		return false
	}

	expected, doc, accepted := agoraExpectedBSON(t, data, exclude)
	require.True(t, accepted, "AgoraBSON accepted what FerretDB's decoder rejects: %q", data)
	assert.Equal(t, expected, actual[len(prefix):], "%q without %v", data, exclude)

	for _, k := range want {
		v, err := doc.Get(k)
		if err != nil {
			assert.False(t, wanted.Has(k))
			continue
		}

		w, err := wanted.Get(k)
		require.NoError(t, err)
		testutil.AssertEqual(t, must.NotFail(types.NewDocument(k, v)), must.NotFail(types.NewDocument(k, w)))
	}

	return true
}

// TestAgoraBSONStoredDocuments: stored documents of the types the transcoder writes are written
// exactly as FerretDB's path writes them, with and without exclusions; the others are declined.
func TestAgoraBSONStoredDocuments(t *testing.T) {
	t.Parallel()

	for i, doc := range agoraStoredDocuments() {
		data, err := Marshal(doc)
		require.NoError(t, err)

		// The documents with binData, regex, timestamps, empty documents or arrays are declined.
		writable := i != 3

		for _, exclude := range [][]string{nil, {"sa", "l", "yes", "nested"}, {"_id"}, {"missing"}} {
			if i == 0 && exclude != nil {
				continue // no _id: FerretDB's projection would fail
			}

			handled := agoraCheckBSON(t, data, exclude, []string{"_id", "sb", "nothing", "missing"})
			assert.Equal(t, writable, handled, "document %d without %v", i, exclude)
		}
	}

	// Agora's comments, as the bench stores them.
	comment := must.NotFail(types.NewDocument(
		"_id", float64(412345), "topicId", float64(9001), "parentId", types.Null, "authorId", float64(17),
		"authorUsername", "member17", "topicAuthorId", float64(3), "markdown", "a *b* <c>",
		"html", "<p>a <em>b</em> &lt;c&gt;</p>\n", "createdAt", time.UnixMilli(1_760_000_000_000).UTC(),
		"editedAt", types.Null, "voteCount", int32(3), "deleted", false, "removed", false,
		"labelWeights", must.NotFail(types.NewDocument("exemplary", int32(0), "noise", int32(1))), "interesting", true,
	))
	data, err := Marshal(comment)
	require.NoError(t, err)
	assert.True(t, agoraCheckBSON(t, data, []string{"markdown"}, []string{"_id"}))
}

// TestAgoraBSONOddInput: on input Marshal never writes, the transcoder declines or agrees.
func TestAgoraBSONOddInput(t *testing.T) {
	t.Parallel()

	for name, tc := range map[string]struct {
		data    string
		handled bool
	}{
		"schema not first": {`{"a":1,"$s":{"p":{"a":{"t":"int"}},"$k":["a"]}}`, false},
		"surrogate pair":   {`{"$s":{"p":{"a":{"t":"string"}},"$k":["a"]},"a":"\ud83d\ude00"}`, false},
		"escaped html":     {`{"$s":{"p":{"a":{"t":"string"}},"$k":["a"]},"a":"\u003cp\u003e \u0026 \u00e9\/"}`, true},
		"escaped key":      {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"\u0061":1}`, false},
		"escaped quotes": {`{"$s":{"p":{"a":{"t":"string"},"b":{"t":"int"}},"$k":["a","b"]},` +
			`"a":"x\"y\\\\\"z\\","b":1}`, true},
		"leading whitespace":  {` {"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`, true},
		"inner whitespace":    {`{ "$s" : {"p":{"a":{"t":"int"}},"$k":["a"]} , "a" : 1 }`, true},
		"trailing whitespace": {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1} `, false},
		"out of order":        {`{"$s":{"p":{"a":{"t":"int"},"b":{"t":"int"}},"$k":["a","b"]},"b":2,"a":1}`, false},
		"duplicate key":       {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,"a":2}`, false},
		"duplicate schema":    {`{"$s":{"p":{},"$k":[]},"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1}`, false},
		"control character":   {"{\"$s\":{\"p\":{\"a\":{\"t\":\"string\"}},\"$k\":[\"a\"]},\"a\":\"x\x01\"}", false},
		"invalid utf-8":       {"{\"$s\":{\"p\":{\"a\":{\"t\":\"string\"}},\"$k\":[\"a\"]},\"a\":\"x\xff\"}", false},
		"nul in key":          {`{"$s":{"p":{"a\u0000":{"t":"int"}},"$k":["a\u0000"]},"a\u0000":1}`, false},
		"int out of range":    {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":2147483648}`, false},
		"int with exponent":   {`{"$s":{"p":{"a":{"t":"long"}},"$k":["a"]},"a":1e3}`, false},
		"double leading +":    {`{"$s":{"p":{"a":{"t":"double"}},"$k":["a"]},"a":+1}`, false},
		"double -0":           {`{"$s":{"p":{"a":{"t":"double"}},"$k":["a"]},"a":-0}`, true},
		"missing field":       {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]}}`, false},
		"extra field":         {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":1,"b":2}`, false},
		"null with any type":  {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a"]},"a":null}`, true},
		"no schema":           {`{"a":1}`, false},
		"trailing data":       {`{"$s":{"p":{},"$k":[]}} {}`, false},
		"not an object":       {`[1]`, false},
		"bad object id":       {`{"$s":{"p":{"a":{"t":"objectId"}},"$k":["a"]},"a":"zz"}`, false},
		"array length":        {`{"$s":{"p":{"a":{"t":"array","i":[{"t":"int"}]}},"$k":["a"]},"a":[1,2]}`, false},
		"repeated schema key": {`{"$s":{"p":{"a":{"t":"int"}},"$k":["a","a"]},"a":1}`, false},
		"nested extra field": {`{"$s":{"p":{"a":{"t":"object","$s":{"p":{"b":{"t":"int"}},"$k":["b"]}}},"$k":["a"]},` +
			`"a":{"b":1,"c":2}}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			handled := agoraCheckBSON(t, []byte(tc.data), nil, []string{"a"})
			assert.Equal(t, tc.handled, handled)
		})
	}
}

// TestAgoraSkipStringFast: the quote search finds the same end as agoraSkipString.
func TestAgoraSkipStringFast(t *testing.T) {
	t.Parallel()

	for _, s := range []string{
		`""`, `"a"`, `"a\"b"`, `"a\\"`, `"a\\\"b"`, `"\\\\"x`, `"unterminated`, `"a\"`, `"\"`, `"x"y"`,
	} {
		agoraCheckSkip(t, []byte(s))
	}
}

// agoraCheckSkip compares agoraSkipStringFast with agoraSkipString at every quote of b.
func agoraCheckSkip(t *testing.T, b []byte) {
	t.Helper()

	for i, c := range b {
		if c != '"' {
			continue
		}

		end, ok := agoraSkipString(b, i)
		fastEnd, fastOK := agoraSkipStringFast(b, i)
		assert.Equal(t, ok, fastOK, "%q at %d", b, i)

		if ok {
			assert.Equal(t, end, fastEnd, "%q at %d", b, i)
		}
	}
}

// TestAgoraBSONExclusionKeepsIDFirst: an exclusion is written only for documents that start with
// _id (FerretDB's projection would move it first).
func TestAgoraBSONExclusionKeepsIDFirst(t *testing.T) {
	t.Parallel()

	data := []byte(`{"$s":{"p":{"a":{"t":"int"},"_id":{"t":"int"}},"$k":["a","_id"]},"a":1,"_id":2}`)

	_, _, ok := AgoraBSON(nil, data, []string{"b"}, nil, nil)
	assert.False(t, ok)

	assert.True(t, agoraCheckBSON(t, data, nil, nil))
}

// FuzzAgoraBSON compares the transcoder with FerretDB's path on arbitrary input: whatever it
// writes, FerretDB's decoder must accept, and FerretDB's path must write the same bytes.
// `go test` runs the seeds; scripts/ferretdb-check.js --fuzztime=<d> fuzzes for that long.
func FuzzAgoraBSON(f *testing.F) {
	for _, doc := range agoraStoredDocuments() {
		f.Add(must.NotFail(Marshal(doc)), false)
	}

	for _, s := range []string{
		`{"$s":{"p":{"_id":{"t":"int"},"b":{"t":"string"}},"$k":["_id","b"]},"_id":1,"b":"\u003c\u0026\u003e"}`,
		`{"$s":{"p":{"_id":{"t":"double"},"b":{"t":"date"}},"$k":["_id","b"]},"_id":-0.0e-0,"b":-62135596800000}`,
		`{"$s":{"p":{"_id":{"t":"long"},"b":{"t":"object","$s":{"p":{"c":{"t":"bool"}},"$k":["c"]}}},"$k":["_id","b"]},` +
			`"_id":9007199254740993,"b":{"c":true}}`,
		`{"$s":{"p":{"_id":{"t":"int"},"b":{"t":"array","i":[{"t":"string"},{"t":"null"}]}},"$k":["_id","b"]},` +
			`"_id":1,"b":["x",null]}`,
	} {
		f.Add([]byte(s), true)
	}

	f.Fuzz(func(t *testing.T, data []byte, excludeB bool) {
		var exclude []string
		if excludeB {
			exclude = []string{"b"}
		}

		agoraCheckBSON(t, data, exclude, []string{"_id", "b"})
		agoraCheckSkip(t, data)
	})
}

// BenchmarkAgoraBSON transcodes a run of documents shaped like a topic's comments (the raw read's
// main use), with one schema hint for the run as agora_raw.go keeps it, and without a hint.
func BenchmarkAgoraBSON(b *testing.B) {
	docs := make([][]byte, 64)
	for i := range docs {
		doc := must.NotFail(types.NewDocument(
			"_id", int32(80000+i), "topicId", int32(9001), "parentId", types.Null, "authorId", int32(212),
			"authorUsername", "member212", "topicAuthorId", int32(291),
			"html", "<p>Experiment down are bread on river rhythm <code>latency</code> their music memory him!</p>\n"+
				"<p>Theory them novel <em>been</em> part theory and your invoice goal player look drum two but!</p>",
			"createdAt", time.UnixMilli(1792286237178+int64(i)), "editedAt", types.Null, "voteCount", int32(i),
			"deleted", false, "removed", false,
			"labelWeights", must.NotFail(types.NewDocument(
				"exemplary", int32(0), "noise", int32(0), "offtopic", int32(0), "joke", int32(0), "malice", int32(0),
			)),
			"interesting", true, "depth", int32(i%7),
		))
		docs[i] = must.NotFail(Marshal(doc))
	}

	for _, withHint := range []bool{true, false} {
		b.Run(map[bool]string{true: "hint", false: "no-hint"}[withHint], func(b *testing.B) {
			var hint *AgoraSchemaHint
			if withHint {
				hint = new(AgoraSchemaHint)
			}

			dst := make([]byte, 0, 4096)

			for i := 0; i < b.N; i++ {
				var ok bool
				if dst, _, ok = AgoraBSON(dst[:0], docs[i%len(docs)], nil, []string{"_id"}, hint); !ok {
					b.Fatal("declined")
				}
			}
		})
	}
}
