// Agora's stored-JSON-to-BSON transcoder (third_party/ferretdb/README.md, docs/embedded-database.md,
// patch 0008).
//
// Why: a find answers with BSON, and FerretDB gets there from the stored JSON in four steps, each
// allocating the whole document again: decode into a *types.Document (agoraUnmarshal), copy it for
// the projection, convert it to a *wirebson.Document, encode that. For the 5,000 comments of one
// topic that was about three quarters of the database's time.
//
// What: AgoraBSON writes the BSON of a stored document straight from its JSON and type schema,
// leaving out the top-level fields of an exclusion projection.
//
// Why the bytes are the same: it writes only values of the types agoraValue decodes itself (strings,
// 32- and 64-bit integers, dates, doubles, booleans, ObjectIds, null, and non-empty documents and
// arrays of those), with the checks agoraValue makes, in the order Unmarshal produces them, as
// wirebson encodes them; for anything else it reports false and the caller takes FerretDB's path
// for that document. agora_bson_test.go compares it with that path on every stored type and with
// a fuzz test; the handler's agora_raw_test.go compares whole find replies.

package sjson

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// BSON element tags (bsonspec.org) of the types AgoraBSON writes.
const (
	agoraTagDouble   = 0x01
	agoraTagString   = 0x02
	agoraTagDocument = 0x03
	agoraTagArray    = 0x04
	agoraTagObjectID = 0x07
	agoraTagBool     = 0x08
	agoraTagDate     = 0x09
	agoraTagNull     = 0x0a
	agoraTagInt32    = 0x10
	agoraTagInt64    = 0x12
)

// AgoraBSON appends to dst the BSON encoding of the stored document data without its top-level
// fields named in exclude (which must then leave _id first, as FerretDB's projection would put it),
// and returns the values of the top-level fields named in want, in a document of their own (absent
// fields absent). It reports false, with dst as given, for anything it does not write exactly as
// FerretDB would: the caller then decodes the document with Unmarshal.
//
// hint, when not nil, keeps the schema of the previous document the caller transcoded (see
// AgoraSchemaHint); a caller that transcodes one document at a time passes one hint for all of them.
func AgoraBSON(dst, data []byte, exclude, want []string, hint *AgoraSchemaHint) ([]byte, *types.Document, bool) {
	// Unmarshal rejects anything after the document, whitespace included (agoraUnmarshal).
	if len(data) == 0 || data[len(data)-1] != '}' {
		return dst, nil, false
	}

	m, ok := agoraOpenObject(data)
	if !ok {
		return dst, nil, false
	}

	sch, _, ok := hint.read(&m)
	if !ok {
		return dst, nil, false
	}

	// ProjectDocument puts _id first; a stored document has it first already.
	if len(exclude) > 0 && (len(sch.Keys) == 0 || sch.Keys[0] != "_id") {
		return dst, nil, false
	}

	var wanted *types.Document
	if len(want) > 0 {
		wanted = types.MakeDocument(len(want))
	}

	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)

	elems := hint.elemsOf(sch)

	for i, name := range sch.Keys {
		key, raw, ok := m.next()
		if !ok || string(key) != name {
			return dst[:start], nil, false
		}

		var e *elem
		if elems != nil {
			e = elems[i]
		} else {
			e = sch.Properties[name]
		}

		if agoraContains(want, name) {
			v, ok := agoraValue(raw, e)
			if !ok {
				return dst[:start], nil, false
			}

			wanted.Set(name, v)
		}

		if agoraContains(exclude, name) {
			continue
		}

		if dst, ok = agoraBSONField(dst, name, raw, e, 0); !ok {
			return dst[:start], nil, false
		}
	}

	// Exactly the schema's keys: a repeated "$s" or any other member is left to Unmarshal.
	if !m.end() {
		return dst[:start], nil, false
	}

	dst = append(dst, 0)
	if len(dst)-start > math.MaxInt32 {
		return dst[:start], nil, false
	}

	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))

	return dst, wanted, true
}

// agoraMembers walks the members of a JSON object as agoraObject splits them, but gives keys
// as their raw bytes, and only when they hold no escape (a key with one is left to Unmarshal).
type agoraMembers struct {
	b    []byte
	i    int
	done bool
}

// agoraOpenObject starts walking the object b.
func agoraOpenObject(b []byte) (agoraMembers, bool) {
	i := agoraSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return agoraMembers{}, false
	}

	m := agoraMembers{b: b, i: agoraSpace(b, i+1)}
	if m.i < len(b) && b[m.i] == '}' {
		m.done = true
		m.i++
	}

	return m, true
}

// next returns the next member's key and value; false at the end or for anything agoraObject
// would not accept.
func (m *agoraMembers) next() ([]byte, []byte, bool) {
	b, i := m.b, m.i
	if m.done || i >= len(b) || b[i] != '"' {
		return nil, nil, false
	}

	end, ok := agoraSkipString(b, i)
	if !ok {
		return nil, nil, false
	}

	key := b[i+1 : end-1]
	for _, c := range key {
		if c < 0x20 || c == '\\' {
			return nil, nil, false
		}
	}

	i = agoraSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return nil, nil, false
	}

	i = agoraSpace(b, i+1)

	if i < len(b) && b[i] == '"' {
		end, ok = agoraSkipStringFast(b, i)
	} else {
		end, ok = agoraSkipValue(b, i, 0)
	}

	if !ok {
		return nil, nil, false
	}

	if !m.finish(end) {
		return nil, nil, false
	}

	return key, b[i:end], true
}

// finish moves past the separator after a member whose value ends at end; false when neither a
// comma nor the object's closing brace follows.
func (m *agoraMembers) finish(end int) bool {
	b := m.b

	i := agoraSpace(b, end)
	if i >= len(b) {
		return false
	}

	switch b[i] {
	case '}':
		m.done = true
	case ',':
	default:
		return false
	}

	m.i = agoraSpace(b, i+1)

	return true
}

// AgoraSchemaHint keeps the schema ("$s") of the last document AgoraBSON transcoded with it, and
// that schema's JSON text.
//
// Why: the documents one query reads mostly share their schema, and finding the end of each one's
// "$s" object byte by byte, then hashing its text to look it up in agoraSchemas, was about a fifth of
// the transcoder's time on a topic's comments (~660 of their ~1,500 bytes are the schema).
//
// Why it is exact: a JSON object's text ends at its closing brace, which agoraSkipValue finds by
// reading no further; so a "$s" member whose value starts with the same bytes as the kept text is
// that same text, and decodes to the same schema. Only a usable schema (agoraSchema) is kept.
type AgoraSchemaHint struct {
	raw   []byte
	sch   *schema
	elems []*elem // sch.Properties in the order of sch.Keys, looked up once
}

// read reads the schema member Marshal writes first ("$s") from m: the kept one when its text is the
// kept text (kept true), else decoded (agoraSchema) and kept; false when there is none to decode.
func (h *AgoraSchemaHint) read(m *agoraMembers) (*schema, bool, bool) {
	if sch := h.skip(m); sch != nil {
		return sch, true, true
	}

	key, raw, ok := m.next()
	if !ok || string(key) != "$s" {
		return nil, false, false
	}

	sch, ok := agoraSchema(raw)
	if !ok {
		return nil, false, false
	}

	h.keep(raw, sch)

	return sch, false, true
}

// skip moves m past a leading "$s" member that holds the kept schema's text and returns that schema;
// nil, with m as it was, otherwise.
func (h *AgoraSchemaHint) skip(m *agoraMembers) *schema {
	if h == nil || h.sch == nil || m.done {
		return nil
	}

	const key = `"$s"`

	b, i := m.b, m.i
	if !bytes.HasPrefix(b[i:], []byte(key)) {
		return nil
	}

	i = agoraSpace(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return nil
	}

	i = agoraSpace(b, i+1)
	if !bytes.HasPrefix(b[i:], h.raw) {
		return nil
	}

	saved := *m
	if !m.finish(i + len(h.raw)) {
		*m = saved
		return nil
	}

	return h.sch
}

// keep makes sch, whose text is raw, the kept schema.
func (h *AgoraSchemaHint) keep(raw []byte, sch *schema) {
	if h == nil || len(raw) == 0 || raw[0] != '{' {
		return
	}

	h.raw = append(h.raw[:0], raw...)
	h.sch = sch

	h.elems = h.elems[:0]
	for _, k := range sch.Keys {
		h.elems = append(h.elems, sch.Properties[k])
	}
}

// elemsOf returns the elements of sch in key order when sch is the kept schema, else nil.
func (h *AgoraSchemaHint) elemsOf(sch *schema) []*elem {
	if h == nil || h.sch != sch {
		return nil
	}

	return h.elems
}

// agoraSkipStringFast returns the end of the string starting at b[i], as agoraSkipString does, but
// finds each quote with bytes.IndexByte: a quote ends the string unless an odd run of backslashes
// precedes it.
func agoraSkipStringFast(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}

		q := j + k

		backslashes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}

		if backslashes%2 == 0 {
			return q + 1, true
		}

		j = q + 1
	}

	return 0, false
}

// end reports whether the walk reached the end of the object, with nothing after it.
func (m *agoraMembers) end() bool {
	return m.done && agoraSpace(m.b, m.i) == len(m.b)
}

func agoraContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}

	return false
}

// agoraBSONField appends one element: its tag, its name as a C string and its value.
func agoraBSONField(dst []byte, name string, raw []byte, sch *elem, depth int) ([]byte, bool) {
	if depth > 100 || strings.IndexByte(name, 0) >= 0 {
		return dst, false
	}

	at := len(dst)
	dst = append(dst, 0)
	dst = append(dst, name...)
	dst = append(dst, 0)

	// As unmarshalSingleValue: a JSON null is BSON null whatever the schema says.
	if bytes.Equal(raw, []byte("null")) {
		dst[at] = agoraTagNull
		return dst, true
	}

	if sch == nil {
		return dst, false
	}

	switch sch.Type {
	case elemTypeObject:
		if sch.Schema == nil || len(sch.Schema.Keys) == 0 {
			return dst, false // an empty document is decoded by the original code
		}

		m, ok := agoraOpenObject(raw)
		if !ok {
			return dst, false
		}

		dst[at] = agoraTagDocument
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0)

		for _, name := range sch.Schema.Keys {
			key, v, ok := m.next()
			if !ok || string(key) != name {
				return dst, false
			}

			if dst, ok = agoraBSONField(dst, name, v, sch.Schema.Properties[name], depth+1); !ok {
				return dst, false
			}
		}

		if !m.end() {
			return dst, false
		}

		dst = append(dst, 0)
		binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))

		return dst, true

	case elemTypeArray:
		if sch.Items == nil {
			return dst, false
		}

		items, ok := agoraArray(raw)
		if !ok || len(items) != len(sch.Items) {
			return dst, false
		}

		dst[at] = agoraTagArray
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0)

		for i, item := range items {
			if dst, ok = agoraBSONField(dst, strconv.Itoa(i), item, sch.Items[i], depth+1); !ok {
				return dst, false
			}
		}

		dst = append(dst, 0)
		binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))

		return dst, true

	case elemTypeString:
		dst[at] = agoraTagString
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0)

		var ok bool
		if dst, ok = agoraAppendString(dst, raw); !ok {
			return dst, false
		}

		binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4+1))

		return append(dst, 0), true

	case elemTypeInt:
		n, ok := agoraInteger(raw, 32)
		if !ok {
			return dst, false
		}

		dst[at] = agoraTagInt32

		return binary.LittleEndian.AppendUint32(dst, uint32(int32(n))), true

	case elemTypeLong, elemTypeDate:
		n, ok := agoraInteger(raw, 64)
		if !ok {
			return dst, false
		}

		dst[at] = agoraTagInt64
		if sch.Type == elemTypeDate {
			dst[at] = agoraTagDate
		}

		return binary.LittleEndian.AppendUint64(dst, uint64(n)), true

	case elemTypeDouble:
		if !agoraIsNumber(raw) {
			return dst, false
		}

		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return dst, false
		}

		dst[at] = agoraTagDouble

		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), true

	case elemTypeBool:
		dst[at] = agoraTagBool

		switch string(raw) {
		case "true":
			return append(dst, 1), true
		case "false":
			return append(dst, 0), true
		}

		return dst, false

	case elemTypeObjectID:
		if len(raw) != 2+2*types.ObjectIDLen || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return dst, false
		}

		var id [types.ObjectIDLen]byte
		if _, err := hex.Decode(id[:], raw[1:len(raw)-1]); err != nil {
			return dst, false
		}

		dst[at] = agoraTagObjectID

		return append(dst, id[:]...), true
	}

	return dst, false
}

// agoraAppendString appends the bytes of a JSON string as agoraString decodes it, or reports false
// for what agoraString leaves to encoding/json.
func agoraAppendString(dst, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, false
	}

	body := raw[1 : len(raw)-1]
	start := len(dst)
	ascii := true

	for i := 0; i < len(body); {
		// A run of bytes that stand for themselves, copied at once.
		j := i
		for j < len(body) {
			c := body[j]
			if c < 0x20 || c == '"' || c == '\\' {
				break
			}

			if c >= 0x80 {
				ascii = false
			}

			j++
		}

		dst = append(dst, body[i:j]...)
		if j == len(body) {
			break
		}

		if body[j] != '\\' || j+1 >= len(body) {
			return dst, false
		}

		ascii = false
		i = j + 2

		switch body[j+1] {
		case '"', '\\', '/':
			dst = append(dst, body[j+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if j+5 >= len(body) {
				return dst, false
			}

			r, ok := agoraHex4(body[j+2 : j+6])
			if !ok || (r >= 0xD800 && r <= 0xDFFF) {
				return dst, false
			}

			dst = utf8.AppendRune(dst, r)
			i = j + 6
		default:
			return dst, false
		}
	}

	if !ascii && !utf8.Valid(dst[start:]) {
		return dst, false
	}

	return dst, true
}

// agoraHex4 parses four hexadecimal digits, as strconv.ParseUint(s, 16, 32) does for them.
func agoraHex4(b []byte) (rune, bool) {
	var r rune

	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}

	return r, true
}

// AgoraSchemaTypes calls fn with the name and stored type ("int", "string", "object", …) of each
// top-level field in the type schema of the stored document data, unless that schema is the one
// hint holds already (fn then is not called: the caller has had those). A field whose element is
// JSON null is left out, as SQLite's json_each(…, '$."$s".p') with ->>'t' leaves it. False when
// data does not start with a schema agoraSchema decodes: the caller reads that document otherwise.
func AgoraSchemaTypes(data []byte, hint *AgoraSchemaHint, fn func(name, typ string)) bool {
	m, ok := agoraOpenObject(data)
	if !ok {
		return false
	}

	sch, kept, ok := hint.read(&m)
	if !ok || kept {
		return ok
	}

	for name, e := range sch.Properties {
		if e != nil {
			fn(name, string(e.Type))
		}
	}

	return true
}
