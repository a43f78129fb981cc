// Tests of the schema's key quoting (agora_schema.go, patch 0015).

package sjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// agoraMarshalSchemaForDocFerretDB is FerretDB's marshalSchemaForDoc as published (json.Marshal of each
// key and of the list of keys).
func agoraMarshalSchemaForDocFerretDB(td *types.Document) ([]byte, error) {
	var buf bytes.Buffer

	keys := td.Keys()
	if len(keys) == 0 {
		return []byte("{}"), nil
	}

	buf.WriteString(`{"p":{`)

	for i, key := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}

		var b []byte
		var err error

		if b, err = json.Marshal(key); err != nil {
			return nil, lazyerrors.Error(err)
		}

		buf.Write(b)
		buf.WriteByte(':')

		b, err = marshalElemForSingleValue(must.NotFail(td.Get(key)))
		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		buf.Write(b)
	}

	buf.WriteString(`},"$k":`)

	b, err := json.Marshal(keys)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	buf.Write(b)
	buf.WriteByte('}')

	return buf.Bytes(), nil
}

// agoraKeys returns strings around every byte json.Marshal may escape.
func agoraKeys() []string {
	keys := []string{
		"", "_id", "a", "voteCount", "lastActivityAt", "key with space", "a.b", "$s", "$k", "a\"b", `c\d`,
		"e<f>", "g&h", "ключ", "日本語", "😀", "line\u2028para\u2029", "\ufffd", "a\xffb", "\xc3", "\xe2\x80",
		"tab\t", "nul\x00", "del\x7f", "~", " ", "/", "'", "`",
	}

	for c := 0; c < 256; c++ {
		keys = append(keys, string([]byte{byte(c)}), "k"+string([]byte{byte(c)})+"k")
		if c < utf8.RuneSelf {
			continue
		}

		keys = append(keys, string(rune(c)), string(rune(c*37)))
	}

	return keys
}

func TestAgoraWriteJSONStringAsEncodingJSON(t *testing.T) {
	keys := agoraKeys()

	for _, k := range keys {
		var buf bytes.Buffer
		agoraWriteJSONString(&buf, k)
		assert.Equal(t, string(must.NotFail(json.Marshal(k))), buf.String(), "%q", k)
	}

	for i := 1; i <= len(keys); i += 7 {
		var buf bytes.Buffer
		agoraWriteJSONStrings(&buf, keys[:i])
		assert.Equal(t, string(must.NotFail(json.Marshal(keys[:i]))), buf.String())
	}
}

func TestAgoraMarshalSchemaAsFerretDB(t *testing.T) {
	docs := agoraStoredDocuments()

	// a document of every key, and documents nesting them
	keyed := types.MakeDocument(0)
	for i, k := range agoraKeys() {
		if !keyed.Has(k) {
			keyed.Set(k, int32(i))
		}
	}

	docs = append(docs, keyed, must.NotFail(types.NewDocument("_id", int32(9), "sub", keyed.DeepCopy(),
		"arr", must.NotFail(types.NewArray(keyed.DeepCopy(), "x")))))

	for _, doc := range docs {
		want, wantErr := agoraMarshalSchemaForDocFerretDB(doc)
		got, gotErr := marshalSchemaForDoc(doc)
		require.Equal(t, wantErr, gotErr)
		assert.Equal(t, string(want), string(got))

		// the whole stored document too
		stored, err := Marshal(doc)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(stored, append([]byte(`{"$s":`), want...)))
	}

	// a duplicated key still panics as FerretDB's Get does
	dup := must.NotFail(types.NewDocument("a", int32(1), "a", int32(2)))
	want := agoraRecover(func() { _, _ = agoraMarshalSchemaForDocFerretDB(dup) })
	assert.NotEmpty(t, want)
	assert.Equal(t, want, agoraRecover(func() { _, _ = marshalSchemaForDoc(dup) }))
}

// agoraRecover runs f and returns what it panicked with, formatted ("" if nothing).
func agoraRecover(f func()) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprint(r)
		}
	}()

	f()

	return ""
}

func BenchmarkAgoraMarshalSchema(b *testing.B) {
	doc := agoraStoredDocuments()[4]

	b.Run("Agora", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = marshalSchemaForDoc(doc)
		}
	})

	b.Run("FerretDB", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = agoraMarshalSchemaForDocFerretDB(doc)
		}
	})
}
