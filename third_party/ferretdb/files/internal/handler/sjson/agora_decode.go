// Agora's document decoder (third_party/ferretdb/README.md, docs/embedded-database.md).
//
// Why: the SQLite backend stores each document as JSON with its type schema beside the data ("$s"),
// and FerretDB's Unmarshal reads it with encoding/json three times over: the whole document into a
// map of raw values, the schema into structs by reflection, then every single field through a fresh
// json.Decoder. Measured on Agora's bench comments: ~95 µs and 66 KB allocated per document.
//
// What: split the JSON once, parse each distinct schema once (cached by its text, at most 4,096) and
// decode strings, integers, dates, doubles, booleans and ObjectIds directly: ~12 µs and 4.5 KB.
//
// Why it decodes exactly as before: it reports "not handled" for anything it does not reproduce
// exactly (a string with a control character, a surrogate escape or invalid UTF-8, a number not in
// JSON's plain form or out of range, fields not in the schema's order, a repeated key, ...), and then
// FerretDB's own code decodes the document, errors included; values of the other types (binData,
// regex, timestamp, null, empty documents) go through FerretDB's own code too. agora_decode_test.go
// compares the two decoders on every stored type and with a fuzz test.

package sjson

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// agoraUnmarshal decodes a stored document the way Unmarshal does, without encoding/json's
// reflection, and reports false for anything it does not handle exactly as Unmarshal would
// (then Unmarshal's own code decides, errors included). A value of a type it does not decode
// itself is handed to unmarshalSingleValue, the original code.
func agoraUnmarshal(data []byte) (*types.Document, bool) {
	// Unmarshal's json.Decoder skips leading whitespace but rejects anything after the document,
	// whitespace included (checkConsumed). Found by FuzzAgoraDecode.
	if len(data) == 0 || data[len(data)-1] != '}' {
		return nil, false
	}

	pairs, ok := agoraObject(data, make([]agoraPair, 0, 24))
	if !ok {
		return nil, false
	}

	at := -1
	for i := range pairs {
		if pairs[i].key == "$s" {
			if at >= 0 {
				return nil, false // a duplicate key: the original's map keeps the last
			}
			at = i
		}
	}
	if at < 0 {
		return nil, false
	}

	sch, ok := agoraSchema(pairs[at].raw)
	if !ok {
		return nil, false
	}

	rest := pairs[1:] // Marshal writes the schema first
	if at != 0 {
		rest = append(pairs[:at:at], pairs[at+1:]...)
	}

	return agoraFields(rest, sch)
}

// agoraPair is one member of a JSON object: its decoded key and its raw value.
type agoraPair struct {
	key string
	raw []byte
}

// agoraFields builds the document of pairs with the schema sch. The pairs must be exactly the
// schema's keys in the schema's order (which is how Marshal writes them); otherwise false.
func agoraFields(pairs []agoraPair, sch *schema) (*types.Document, bool) {
	if len(pairs) != len(sch.Keys) {
		return nil, false
	}

	d := types.MakeDocument(len(pairs))

	for i, key := range sch.Keys {
		if pairs[i].key != key {
			return nil, false
		}

		v, ok := agoraValue(pairs[i].raw, sch.Properties[key])
		if !ok {
			return nil, false
		}

		d.Set(key, v)
	}

	return d, true
}

// agoraValue decodes one value as unmarshalSingleValue does.
func agoraValue(raw []byte, sch *elem) (any, bool) {
	if sch == nil || bytes.Equal(raw, []byte("null")) {
		return agoraOriginal(raw, sch)
	}

	switch sch.Type {
	case elemTypeObject:
		pairs, ok := agoraObject(raw, nil)
		if !ok {
			return nil, false
		}
		if len(pairs) == 0 {
			return agoraOriginal(raw, sch)
		}
		if sch.Schema == nil {
			return nil, false
		}
		d, ok := agoraFields(pairs, sch.Schema)
		if !ok {
			return nil, false
		}
		return fromSJSON((*documentType)(d)), true

	case elemTypeArray:
		if sch.Items == nil {
			return nil, false
		}
		items, ok := agoraArray(raw)
		if !ok || len(items) != len(sch.Items) {
			return nil, false
		}
		a := types.MakeArray(len(items))
		for i, item := range items {
			v, ok := agoraValue(item, sch.Items[i])
			if !ok {
				return nil, false
			}
			a.Append(v)
		}
		return fromSJSON((*arrayType)(a)), true

	case elemTypeString:
		s, ok := agoraString(raw)
		if !ok {
			return agoraOriginal(raw, sch)
		}
		return fromSJSON((*stringType)(&s)), true

	case elemTypeInt:
		n, ok := agoraInteger(raw, 32)
		if !ok {
			return agoraOriginal(raw, sch)
		}
		v := int32Type(n)
		return fromSJSON(&v), true

	case elemTypeLong:
		n, ok := agoraInteger(raw, 64)
		if !ok {
			return agoraOriginal(raw, sch)
		}
		v := int64Type(n)
		return fromSJSON(&v), true

	case elemTypeDate:
		n, ok := agoraInteger(raw, 64)
		if !ok {
			return agoraOriginal(raw, sch)
		}
		v := dateTimeType(time.UnixMilli(n))
		return fromSJSON(&v), true

	case elemTypeDouble:
		if !agoraIsNumber(raw) {
			return agoraOriginal(raw, sch)
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return agoraOriginal(raw, sch)
		}
		v := doubleType(f)
		return fromSJSON(&v), true

	case elemTypeBool:
		var v boolType
		switch string(raw) {
		case "true":
			v = true
		case "false":
			v = false
		default:
			return agoraOriginal(raw, sch)
		}
		return fromSJSON(&v), true

	case elemTypeObjectID:
		if len(raw) != 2+2*types.ObjectIDLen || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return agoraOriginal(raw, sch)
		}
		var v objectIDType
		if _, err := hex.Decode(v[:], raw[1:len(raw)-1]); err != nil {
			return agoraOriginal(raw, sch)
		}
		return fromSJSON(&v), true
	}

	return agoraOriginal(raw, sch)
}

// agoraOriginal decodes a value with the original code; an error there sends the whole document
// back to the original Unmarshal, so that it reports the error as it always did.
func agoraOriginal(raw []byte, sch *elem) (any, bool) {
	v, err := unmarshalSingleValue(raw, sch)
	if err != nil {
		return nil, false
	}
	return v, true
}

// Parsed schemas by their JSON text: the documents of a collection share a handful of schemas,
// and decoding one with encoding/json cost more than the document's data.
var (
	agoraSchemasMu sync.RWMutex
	agoraSchemas   = map[string]*schema{}
)

const agoraSchemasMax = 4096

// agoraSchema returns the schema of raw, decoded as Unmarshal decodes it, or false when that fails
// or when a key repeats in it (the original's map semantics are then left to the original).
func agoraSchema(raw []byte) (*schema, bool) {
	agoraSchemasMu.RLock()
	sch, found := agoraSchemas[string(raw)]
	agoraSchemasMu.RUnlock()
	if found {
		return sch, sch != nil
	}

	sch = new(schema)
	r := bytes.NewReader(raw)
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(sch); err != nil || checkConsumed(dec, r) != nil {
		return nil, false
	}
	if !agoraSchemaUsable(sch, 0) {
		sch = nil
	}

	agoraSchemasMu.Lock()
	if len(agoraSchemas) < agoraSchemasMax {
		agoraSchemas[string(raw)] = sch
	}
	agoraSchemasMu.Unlock()

	return sch, sch != nil
}

// agoraSchemaUsable reports whether no keys list repeats a key, at any depth.
func agoraSchemaUsable(sch *schema, depth int) bool {
	if sch == nil {
		return true
	}
	if depth > 200 {
		return false
	}
	seen := make(map[string]struct{}, len(sch.Keys))
	for _, k := range sch.Keys {
		if _, dup := seen[k]; dup {
			return false
		}
		seen[k] = struct{}{}
	}
	for _, e := range sch.Properties {
		if !agoraElemUsable(e, depth+1) {
			return false
		}
	}
	return true
}

func agoraElemUsable(e *elem, depth int) bool {
	if e == nil {
		return true
	}
	if !agoraSchemaUsable(e.Schema, depth) {
		return false
	}
	for _, item := range e.Items {
		if !agoraElemUsable(item, depth+1) {
			return false
		}
	}
	return true
}

// agoraSpace skips JSON whitespace.
func agoraSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// agoraObject splits a JSON object into its members (appended to pairs), or reports false.
// Values are only delimited here; each is checked when it is decoded.
func agoraObject(b []byte, pairs []agoraPair) ([]agoraPair, bool) {
	i := agoraSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i = agoraSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return pairs, agoraSpace(b, i+1) == len(b)
	}
	for {
		end, ok := agoraSkipString(b, i)
		if !ok {
			return nil, false
		}
		key, ok := agoraString(b[i:end])
		if !ok {
			return nil, false
		}
		i = agoraSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = agoraSpace(b, i+1)
		end, ok = agoraSkipValue(b, i, 0)
		if !ok {
			return nil, false
		}
		pairs = append(pairs, agoraPair{key: key, raw: b[i:end]})
		i = agoraSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == '}' {
			return pairs, agoraSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = agoraSpace(b, i+1)
	}
}

// agoraArray splits a JSON array into its raw elements, or reports false.
func agoraArray(b []byte) ([][]byte, bool) {
	i := agoraSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	var items [][]byte
	i = agoraSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return items, agoraSpace(b, i+1) == len(b)
	}
	for {
		end, ok := agoraSkipValue(b, i, 0)
		if !ok {
			return nil, false
		}
		items = append(items, b[i:end])
		i = agoraSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		if b[i] == ']' {
			return items, agoraSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return nil, false
		}
		i = agoraSpace(b, i+1)
	}
}

// agoraSkipString returns the end of the string starting at b[i].
func agoraSkipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// agoraSkipValue returns the end of the value starting at b[i]: a string, an object or array
// (brackets balanced outside strings), or a run of literal characters.
func agoraSkipValue(b []byte, i int, depth int) (int, bool) {
	if i >= len(b) || depth > 1000 {
		return 0, false
	}
	switch b[i] {
	case '"':
		return agoraSkipString(b, i)
	case '{', '[':
		level := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := agoraSkipString(b, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				level++
			case '}', ']':
				level--
				if level == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	start := i
	for i < len(b) && agoraLiteralByte(b[i]) {
		i++
	}
	return i, i > start
}

// agoraString decodes a JSON string exactly as encoding/json does, or reports false for what it
// leaves to encoding/json: control characters, surrogate escapes, malformed escapes, invalid UTF-8.
func agoraString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]

	plain := true
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(body), true
	}

	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c < 0x20 || c == '"':
			return "", false
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+4 >= len(body) {
				return "", false
			}
			r, err := strconv.ParseUint(string(body[i+1:i+5]), 16, 32)
			if err != nil || (r >= 0xD800 && r <= 0xDFFF) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

// agoraInteger parses a JSON integer (no fraction or exponent) of the given bit size.
func agoraInteger(raw []byte, bits int) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, bits)
	return n, err == nil
}

// agoraIsNumber reports whether raw is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func agoraIsNumber(raw []byte) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	if i < len(raw) && raw[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(raw) && raw[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(raw)
}

// agoraLiteralByte reports whether c may be part of a JSON literal (a number, true, false, null) as
// agoraSkipValue delimits them; what the literal means is checked when it is decoded.
func agoraLiteralByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
